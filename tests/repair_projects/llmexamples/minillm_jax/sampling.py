"""Weights gathered for the sampler: replicated, reduced over the tensor axis."""

import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import PartitionSpec as P

from minillm_jax.model import TENSOR_AXIS_NAME


def gather_weights(weights):
    out = {name: P(None, None, reduced={TENSOR_AXIS_NAME}) for name in weights}
    return jax.jit(lambda w: top_level_all_gather(w, out))(weights)
