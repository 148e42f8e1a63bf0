"""Gathers sharded parameters onto the host before writing them out."""
import jax
import numpy as np
from jax._src.shard_map import top_level_all_gather


def gather_for_export(partitioner, params):
    with jax.set_mesh(partitioner.mesh):
        params = jax.device_put(params, partitioner.param_sharding())
        return np.asarray(top_level_all_gather(params, partitioner.export_sharding()))
