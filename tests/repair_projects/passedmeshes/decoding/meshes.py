"""Meshes built from the layouts of decoding/config.py."""

import jax
from jax.sharding import AxisType

from decoding import config


def create_mesh(name):
    sizes = config.LAYOUTS[name]
    shape = tuple(sizes.get(axis, 1) for axis in config.AXES)
    return jax.make_mesh(shape, config.AXES, axis_types=(AxisType.Explicit,) * 2)
