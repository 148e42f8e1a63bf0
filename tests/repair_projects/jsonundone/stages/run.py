import jax
from jax.sharding import AbstractMesh

from stages.config import STAGES


def stage_mesh(entry):
    return AbstractMesh(tuple(entry["mesh_shape"]), ("data", "model"))


def per_shard_batch(name):
    entry = STAGES[name]
    inner = stage_mesh(entry)
    with jax.sharding.use_abstract_mesh(inner):
        per_shard = entry["batch"] // inner.shape["data"]
        assert per_shard * inner.shape["data"] == entry["batch"], "the batch does not split"
        return per_shard
