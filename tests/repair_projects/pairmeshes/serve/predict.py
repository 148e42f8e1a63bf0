"""Predictors gathering sharded logits to the host."""

import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

from serve import meshes


class Predictor:
    axes = (("batch", 2), ("model", 4))

    def __init__(self, settings):
        self.mesh = meshes.from_axes(self.axes)
        self.out_sharding = NamedSharding(self.mesh, P(None, "model", reduced={"batch"}))

    def gathered(self, logits):
        return np.asarray(meshes.gather(logits, self.out_sharding))


class Scorer:
    axes = (("batch", 4), ("model", 2))

    def __init__(self, settings):
        self.mesh = meshes.from_axes(self.axes)
        self.out_sharding = NamedSharding(self.mesh, P(None, "model", reduced={"batch"}))

    def gathered(self, logits):
        return np.asarray(meshes.gather(logits, self.out_sharding))
