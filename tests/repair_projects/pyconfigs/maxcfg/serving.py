"""KV cache layouts on the serving meshes."""

import functools

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from maxcfg import meshes


def _cache(batch, config):
    shape = (batch, config.max_target_length, config.num_heads, config.head_dim)
    return jnp.zeros(shape, jnp.float32, out_sharding=P("fsdp", None, "tensor", None))


def cache_spec(config, mesh, batch=8):
    with jax.sharding.use_abstract_mesh(mesh):
        return jax.eval_shape(functools.partial(_cache, batch, config)).sharding.spec


def prefill_cache_spec(config):
    return cache_spec(config, meshes.prefill_mesh(config))


def decode_cache_spec(config):
    return cache_spec(config, meshes.decode_mesh(config))
