"""The mesh a run is sharded over, put in force for the whole loop."""

import contextlib
import dataclasses

import jax


@dataclasses.dataclass(frozen=True)
class GlobalMesh:
    mesh: object
    batch: object = jax.sharding.PartitionSpec("data")

    @contextlib.contextmanager
    def activated(self):
        with jax.set_mesh(self.mesh):
            yield
