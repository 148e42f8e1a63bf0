"""Collectives shared by the stages."""

from jax._src import shard_map


def gather_reduced(xs, out_sharding):
    """All-gathers `xs` into a `reduced` copy laid out as `out_sharding`."""
    return shard_map.top_level_all_gather(xs, out_sharding)
