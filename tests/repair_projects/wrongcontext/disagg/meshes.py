"""Prefill and decode meshes of different shapes over the same eight devices."""

import jax
import numpy as np

AXES = ("data", "tensor")


def build_mesh(dp: int, tp: int) -> jax.sharding.Mesh:
    devices = np.array(jax.devices()[: dp * tp]).reshape(dp, tp)
    return jax.sharding.Mesh(devices, AXES, axis_types=(jax.sharding.AxisType.Explicit,) * 2)
