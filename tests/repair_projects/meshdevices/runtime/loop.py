"""Runs a jitted step whose input is sharded by the strategy's PartitionSpec."""

import jax
import numpy as np


def run(strategy, steps=2):
    step = jax.jit(lambda x: x * 2, in_shardings=(strategy.batch,))
    with strategy.activated():
        outs = [step(np.ones((16, 4), np.float32)) for _ in range(steps)]
    return [len(out.sharding.device_set) for out in outs]
