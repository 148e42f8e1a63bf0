"""Builds a (data, fsdp)-shaped device mesh under the axis names a partitioner gives."""
import jax
import numpy as np
from jax.sharding import AxisType, Mesh


def create_mesh(dp, fsdp, axis_names):
    devices = np.asarray(jax.devices()).reshape(dp, fsdp)
    return Mesh(devices, axis_names, axis_types=(AxisType.Explicit,) * 2)
