"""The evaluation step: jitted with PartitionSpecs, which take their mesh from the context the
caller enters (model/training.py)."""

import jax
from jax.sharding import PartitionSpec


def _doubled(batch):
    return batch * 2


def evaluate(batch):
    step = jax.jit(_doubled, in_shardings=PartitionSpec("x"))
    return step(batch)


def count(batch):
    return len(batch)
