"""Gathers run under the serving mesh; some inputs and out_shardings sit on a side mesh of the
same axes and another shape."""
import functools

import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import AxisType, NamedSharding, PartitionSpec

from serve.wrap import compiled

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit, AxisType.Explicit)


@compiled
def _mean_all(values):
    return top_level_all_gather(values, PartitionSpec(reduced={"data"})).mean()


class Server:
    @functools.cached_property
    def mesh(self):
        return jax.make_mesh((2, 4), AXES, axis_types=EXPLICIT)

    @functools.cached_property
    def side_mesh(self):
        return jax.make_mesh((8, 1), AXES, axis_types=EXPLICIT)

    def mean_side(self, values):
        values = jax.device_put(values, NamedSharding(self.side_mesh, PartitionSpec("data")))
        with jax.set_mesh(self.mesh):
            return _mean_all(values)

    def mean_main(self, values):
        values = jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("data")))
        with jax.set_mesh(self.mesh):
            return _mean_all(values)

    def total_side(self, values):
        values = jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("data")))
        out = NamedSharding(self.side_mesh, PartitionSpec(reduced={"data"}))

        @jax.jit
        def _total(v):
            return top_level_all_gather(v, out).sum()

        with jax.set_mesh(self.mesh):
            return _total(values)

    def total_main(self, values):
        values = jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("data")))
        out = NamedSharding(self.mesh, PartitionSpec(reduced={"data"}))

        @jax.jit
        def _total(v):
            return top_level_all_gather(v, out).sum()

        with jax.set_mesh(self.mesh):
            return _total(values)

    def total_twice(self, values):
        values = jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("data")))
        out = NamedSharding(self.side_mesh, PartitionSpec(reduced={"data"}))

        @jax.jit
        def _total(v):
            return top_level_all_gather(v, out).sum()

        with jax.set_mesh(self.mesh):
            return _total(values) + _total(values)
