import jax
import numpy as np

from serve.partition import Partitioner, loader_mesh, place
from serve.step import gather_batch, total


class Runner:
    def __init__(self):
        self._partitioner = Partitioner((2, 4))
        self.other = Partitioner((4, 2))

    def step(self, params):
        batch = place(np.arange(8.0, dtype=np.float32), loader_mesh())
        with jax.set_mesh(self._partitioner.global_mesh):
            return gather_batch(params, batch)

    def placed_step(self, params):
        batch = place(np.arange(8.0, dtype=np.float32), self._partitioner.global_mesh)
        with jax.set_mesh(self._partitioner.global_mesh):
            return gather_batch(params, batch=batch)

    def reset_total(self):
        batch = place(np.arange(8.0, dtype=np.float32), loader_mesh())
        with jax.set_mesh(self._partitioner.global_mesh):
            self.reset_mesh()
            return total(batch)

    def reset_mesh(self):
        jax.set_mesh(self.other.global_mesh)
