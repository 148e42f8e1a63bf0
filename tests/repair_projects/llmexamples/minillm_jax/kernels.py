"""A per-shard feed-forward block."""

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def ffw_block(x, up, cfg):
    @partial(
        jax.shard_map,
        mesh=cfg.mesh,
        in_specs=(P("x", None), P(None, "y")),
        out_specs=P("x", "y"),
        check_rep=False,
    )
    def _f(x, up):
        return jax.nn.gelu(jnp.dot(x, up))

    return _f(x, up)
