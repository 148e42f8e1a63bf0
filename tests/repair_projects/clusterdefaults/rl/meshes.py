import jax
from jax.sharding import AbstractMesh, AxisType

AXES = ("fsdp", "tp")
EXPLICIT = (AxisType.Explicit,) * 2


def role_mesh(shape):
    return jax.make_mesh(tuple(shape), AXES, axis_types=EXPLICIT)


def planning_mesh(shape):
    return AbstractMesh(tuple(shape), AXES, axis_types=EXPLICIT)
