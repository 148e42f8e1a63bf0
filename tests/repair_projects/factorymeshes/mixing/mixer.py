import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from mixing.explicit import explicit_mesh
from mixing.meshes import create_mesh, served_mesh, stage_mesh


def _mix(x):
    return x * 2.0


class MixerConfig:

    def __init__(self, dims=(8, 1), names=("data", "model")):
        self.dims = dims
        self.mesh = create_mesh(dims, names)


class DataMixer:

    def __init__(self, config):
        self.config = config

    def __call__(self, x):
        return jax.shard_map(
            _mix, mesh=self.config.mesh, in_specs=P("data", None), out_specs=P("data", None)
        )(x)


def data_mix():
    return jax.jit(DataMixer(MixerConfig()).__call__)(jnp.ones((8, 4)))


def stage_mix():
    mesh = stage_mesh(2)
    return jax.shard_map(
        _mix, mesh=mesh, in_specs=P("stage", None), out_specs=P("stage", None)
    )(jnp.ones((8, 4)))


def row_mix():
    mesh = explicit_mesh(8)
    return jax.shard_map(
        _mix, mesh=mesh, in_specs=P("rows", None), out_specs=P("rows", None)
    )(jnp.ones((8, 4)))


def served_mix():
    mesh = served_mesh((8, 1))
    return jax.shard_map(
        _mix, mesh=mesh, in_specs=P("data", None), out_specs=P("data", None)
    )(jnp.ones((8, 4)))
