import jax
from jax.sharding import AbstractMesh, AxisType

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit, AxisType.Explicit)


def train_mesh():
    return jax.make_mesh((4, 2), AXES, axis_types=EXPLICIT)


def probe_mesh(data, model):
    return AbstractMesh((data, model), AXES, axis_types=EXPLICIT)


def shaped_mesh(shape):
    return AbstractMesh(tuple(shape), AXES, axis_types=EXPLICIT)
