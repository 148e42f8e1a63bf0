"""Gathers KV pages before they leave the prefill side."""

from jax._src.shard_map import top_level_all_gather


def gather_pages(pages, out_sharding):
    return top_level_all_gather(pages, out_sharding)
