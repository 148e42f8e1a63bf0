"""Meshes whose sizes are read from a {axis name: size} mapping, one entry an axis."""

import jax
from jax.sharding import AbstractMesh, AxisType

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit,) * len(AXES)


def device_mesh():
    return jax.make_mesh((2, 4), AXES, axis_types=EXPLICIT)


def abstract_mesh(sizes):
    return AbstractMesh(tuple(sizes.get(name, 1) for name in AXES), AXES, axis_types=EXPLICIT)


def strict_abstract_mesh(sizes):
    return AbstractMesh(tuple([sizes[name] for name in AXES]), AXES, axis_types=EXPLICIT)
