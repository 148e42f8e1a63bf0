"""Experiments: each sets the global mesh, and may reshape a layer's own mesh."""

from models import layers


class Base:
    SHAPE = (4, 2)
    NAMES = ("data", "model")

    def embedding(self):
        return layers.Embedding(shape=self.SHAPE, names=self.NAMES, vocab=64)


class Wide(Base):
    """The embedding sharded 4-way over the model axis."""

    def embedding(self):
        layer = super().embedding()
        layer.shape = (2, 4)
        return layer


class Tall(Base):
    """The whole experiment on the (2, 4) mesh."""

    SHAPE = (2, 4)

    def embedding(self):
        layer = super().embedding()
        layer.shape = (2, 4)
        return layer
