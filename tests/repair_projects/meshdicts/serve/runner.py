"""A runner holding its meshes in a dict, read by name."""

import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def make_mesh(shape):
    return jax.make_mesh(
        shape, ("data", "model"), axis_types=(jax.sharding.AxisType.Explicit,) * 2
    )


class Runner:
    def __init__(self):
        self._meshes = {"train": make_mesh((4, 2)), "eval": make_mesh((8, 1))}
        self.mesh = self._meshes["train"]

    def mesh_for(self, name):
        return self._meshes[name]

    def total(self, x):
        """Gathers losses placed on the eval mesh under the train mesh."""
        x = jax.device_put(x, NamedSharding(self._meshes["eval"], P("data")))
        out = NamedSharding(self._meshes["train"], P(reduced={"data"}))

        @jax.jit
        def _sum(v):
            return top_level_all_gather(v, out).sum()

        with jax.set_mesh(self._meshes["train"]):
            return _sum(x)

    def train_total(self, x):
        """Runs: the losses are on the train mesh already."""
        x = jax.device_put(x, NamedSharding(self._meshes["train"], P("data")))
        out = NamedSharding(self._meshes["train"], P(reduced={"data"}))

        @jax.jit
        def _sum(v):
            return top_level_all_gather(v, out).sum()

        with jax.set_mesh(self._meshes["train"]):
            return _sum(x)
