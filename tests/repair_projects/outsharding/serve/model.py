"""A server whose gathers run in lambdas jitted and called under its mesh; each out_sharding is
bound to a local first. `spec_mesh` is an AbstractMesh of the serving mesh's shape built by
hand: it carries no device, so JAX raises that the context mesh should match it."""

import jax
import numpy as np
from jax._src.shard_map import top_level_all_gather
from jax.sharding import AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec

EXPLICIT = (AxisType.Explicit,)


class Server:
    def __init__(self):
        devices = np.array(jax.devices())
        self.mesh = Mesh(devices, ("x",), axis_types=EXPLICIT)
        self.spec_mesh = AbstractMesh(devices.shape, ("x",), axis_types=EXPLICIT)

    def _placed(self, values):
        return jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("x")))

    def total(self, values):
        values = self._placed(values)
        out = NamedSharding(self.spec_mesh, PartitionSpec(reduced={"x"}))
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda v: top_level_all_gather(v, out).sum())(values)

    def total_on_mesh(self, values):
        values = self._placed(values)
        out = NamedSharding(self.mesh, PartitionSpec(reduced={"x"}))
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda v: top_level_all_gather(v, out).sum())(values)

    def total_and_sharding(self, values):
        values = self._placed(values)
        out = NamedSharding(self.spec_mesh, PartitionSpec(reduced={"x"}))
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda v: top_level_all_gather(v, out).sum())(values), out

    def total_later(self, values):
        values = self._placed(values)
        out = NamedSharding(self.spec_mesh, PartitionSpec(reduced={"x"}))
        step = jax.jit(lambda v: top_level_all_gather(v, out).sum())
        with jax.set_mesh(self.mesh):
            return step(values)
