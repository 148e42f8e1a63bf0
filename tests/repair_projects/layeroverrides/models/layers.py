"""Layers that build their mesh from their own parameters."""

import dataclasses
import functools
from typing import Sequence

from models import meshes


@dataclasses.dataclass
class Layer:
    shape: Sequence[int] = ()
    names: Sequence[str] = ()

    @functools.cached_property
    def mesh(self):
        return meshes.device_mesh(self.shape, self.names)


@dataclasses.dataclass
class Embedding(Layer):
    vocab: int = 0

    def lookup(self, table):
        return meshes.gathered(table, self.mesh, ["data"]).shape
