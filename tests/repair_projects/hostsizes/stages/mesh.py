"""Meshes of two axes whose sizes a config gives, some computed from the host."""

import jax
from jax.sharding import AbstractMesh, AxisType

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit,) * len(AXES)


def device_mesh():
    return jax.make_mesh((2, 4), AXES, axis_types=EXPLICIT)


def abstract_mesh(shape):
    return AbstractMesh(shape, AXES, axis_types=EXPLICIT)
