"""A trainer owning its device mesh, entered as a context manager."""

import contextlib
import dataclasses

import jax
import numpy as np
from jax.sharding import Mesh


@dataclasses.dataclass(frozen=True)
class TrainerConfig:
    model_axis_size: int = 2
    steps: int = 2

    @property
    def device_mesh(self) -> Mesh:
        devices = np.array(jax.devices())
        return Mesh(devices.reshape(-1, self.model_axis_size), ("data", "model"))


class Trainer:
    def __init__(self, config):
        self.config = config
        self.mesh = config.device_mesh

    @contextlib.contextmanager
    def use_device_mesh(self):
        with self.mesh:
            yield self

    def __enter__(self):
        self._ctx = self.use_device_mesh()
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


class Exporter:
    """Lowers under the mesh with shardings that name it: the block needs no context mesh."""

    def __init__(self, config):
        self.mesh = config.device_mesh

    def export(self, fn, x):
        with self.mesh:
            sharding = jax.sharding.NamedSharding(self.mesh, jax.sharding.PartitionSpec("data"))
            return jax.jit(fn, in_shardings=sharding)(x)
