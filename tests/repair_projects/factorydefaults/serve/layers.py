"""Gathering layers made by factories: the out_sharding a layer stores in `__init__` is the
factory's keyword default, a NamedSharding on `SPEC_MESH`, an AbstractMesh of the serving
mesh's shape built by hand (it carries no device: JAX raises that the context mesh should
match it)."""

import jax
import numpy as np
from jax._src.shard_map import top_level_all_gather
from jax.sharding import AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec

EXPLICIT = (AxisType.Explicit,)
SPEC_MESH = AbstractMesh((8,), ("x",), axis_types=EXPLICIT)


def serving_mesh():
    return Mesh(np.array(jax.devices()), ("x",), axis_types=EXPLICIT)


class Gather:
    def __init__(self, mesh, out_sharding):
        self.mesh = mesh
        self.out_sharding = out_sharding

    def total(self, values):
        values = jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("x")))
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda v: top_level_all_gather(v, self.out_sharding).sum())(
                values
            )


def make_gather(
    mesh, out_sharding=NamedSharding(SPEC_MESH, PartitionSpec(reduced={"x"}))
):
    return Gather(mesh, out_sharding)


class Summary:
    """Its out_sharding is read twice: the gather's and the summary's."""

    def __init__(self, mesh, out_sharding):
        self.mesh = mesh
        self.out_sharding = out_sharding

    def total(self, values):
        values = jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("x")))
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda v: top_level_all_gather(v, self.out_sharding).sum())(
                values
            )

    def layout(self):
        return self.out_sharding


def make_summary(
    mesh, out_sharding=NamedSharding(SPEC_MESH, PartitionSpec(reduced={"x"}))
):
    return Summary(mesh, out_sharding)


def make_scaled(
    mesh, scale=2, out_sharding=NamedSharding(SPEC_MESH, PartitionSpec(reduced={"x"}))
):
    class Scaled:
        """A layer made in its factory: `out_sharding` is the factory's."""

        def __init__(self):
            self.mesh = mesh
            self.out_sharding = out_sharding

        def total(self, values):
            values = jax.device_put(values, NamedSharding(mesh, PartitionSpec("x")))
            with jax.set_mesh(self.mesh):
                return jax.jit(
                    lambda v: scale * top_level_all_gather(v, self.out_sharding).sum()
                )(values)

    return Scaled()


class Local:
    """`__init__`'s own default, the one construction passing none."""

    def __init__(
        self, mesh, out_sharding=NamedSharding(SPEC_MESH, PartitionSpec(reduced={"x"}))
    ):
        self.mesh = mesh
        self.out_sharding = out_sharding

    def total(self, values):
        values = jax.device_put(values, NamedSharding(self.mesh, PartitionSpec("x")))
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda v: top_level_all_gather(v, self.out_sharding).sum())(
                values
            )


def local_layer():
    return Local(serving_mesh())
