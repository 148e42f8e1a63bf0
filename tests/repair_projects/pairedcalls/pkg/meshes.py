import math

import jax
from jax.sharding import AxisType


def build(shape, names=("data", "model")):
    devices = jax.devices()[: math.prod(shape)]
    return jax.make_mesh(
        shape, names, devices=devices, axis_types=(AxisType.Explicit,) * len(names)
    )
