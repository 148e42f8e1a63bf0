import jax
from jax.sharding import AbstractMesh, AxisType

AXES = ("dp", "fsdp", "tp")
EXPLICIT = (AxisType.Explicit,) * 3


def create_mesh(axis_dims):
    return jax.make_mesh(tuple(axis_dims), AXES, axis_types=EXPLICIT)


def create_abstract_mesh(axis_dims):
    return AbstractMesh(tuple(axis_dims), AXES, axis_types=EXPLICIT)
