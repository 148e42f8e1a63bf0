"""Per-device token accounting, reduced across the data axis."""
import functools

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def count_tokens(mesh, mask):
    @functools.partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P())
    def _count(m):
        return jax.lax.psum(jnp.sum(m), "data")

    return _count(mask)


def count_eval_tokens(mesh, mask):
    @functools.partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P())
    def _count(m):
        return jax.lax.psum(jnp.sum(m), "data")

    return _count(mask)
