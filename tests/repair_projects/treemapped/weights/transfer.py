"""Gathers a tree of weights along one axis, leaf by leaf."""

import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import PartitionSpec as P


def _gather_spec(spec, axis):
    return P(*[None if part == axis else part for part in spec], reduced={axis})


def gather_tree(source, axis="model"):
    def _one(x):
        return top_level_all_gather(x, _gather_spec(x.sharding.spec, axis))

    return jax.tree.map(_one, source)
