import jax
from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit, AxisType.Explicit)


def device_mesh(dp, tp):
    return jax.make_mesh((dp, tp), AXES, axis_types=EXPLICIT)


def abstract(axes):
    return AbstractMesh((axes.dp, axes.tp), AXES, axis_types=EXPLICIT)


def loader_mesh():
    return jax.make_mesh((8, 1), AXES, axis_types=EXPLICIT)


def place(x, mesh):
    return jax.device_put(x, NamedSharding(mesh, P("data")))
