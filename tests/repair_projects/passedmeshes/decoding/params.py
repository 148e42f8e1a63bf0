"""Parameter init and the decode-time parameter layout."""

import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

PARTITIONS = {"embed": ("data", None), "proj": (None, "data")}


def init_params(seed=0):
    keys = iter(jax.random.split(jax.random.key(seed), len(PARTITIONS)))
    return {
        name: jax.random.normal(next(keys), (8, 8), out_sharding=P(*partition))
        for name, partition in PARTITIONS.items()
    }


def gather_for_decoding(params, mesh):
    """All-gathers the data axis of every parameter (reduced over it)."""

    def out_sharding(partition):
        kept = tuple(None if p == "data" else p for p in partition)
        return NamedSharding(mesh, P(*kept, reduced={"data"}))

    out_shardings = jax.tree.map(
        out_sharding, PARTITIONS, is_leaf=lambda x: isinstance(x, tuple)
    )
    return jax.jit(lambda p: top_level_all_gather(p, out_shardings))(params)


def gather_then_place(params, mesh):
    """Gathers, then places the gathered copy on `mesh` for the sampler."""
    out_shardings = {
        name: NamedSharding(mesh, P(reduced={"data"})) for name in PARTITIONS
    }
    gathered = jax.jit(lambda p: top_level_all_gather(p, out_shardings))(params)
    return jax.device_put(gathered, NamedSharding(mesh, P()))


def gather_replicated(params):
    """All-gathers every parameter onto the context mesh, replicated."""
    out = {name: P(None, None, reduced={"data"}) for name in params}
    return jax.jit(lambda p: top_level_all_gather(p, out))(params)
