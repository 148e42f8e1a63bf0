"""The meshes: a partitioner object holds the one the step runs on (t5x style); the loader
places each host's batch with `make_array_from_process_local_data` on a mesh of its own."""
import jax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

AXES = ("data", "model")


class Partitioner:
    def __init__(self, shape):
        self.global_mesh = jax.make_mesh(shape, AXES, axis_types=(AxisType.Explicit,) * 2)


def loader_mesh():
    return jax.make_mesh((8, 1), AXES, axis_types=(AxisType.Explicit,) * 2)


def place(local, mesh):
    return jax.make_array_from_process_local_data(NamedSharding(mesh, P("data")), local)
