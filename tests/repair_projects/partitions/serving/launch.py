"""How the server's devices are split: a fixed slice, partitioned as the launcher says."""

import os

NUM_DEVICES = 8
MODEL_PARALLEL = 2


def num_partitions():
    return int(os.environ.get("NUM_PARTITIONS", "2"))
