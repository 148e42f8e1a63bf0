"""Mesh factories: each takes its sizes from what the caller passes."""
from jax.sharding import AbstractMesh


def from_dict(cfg):
    return AbstractMesh(cfg["shape"], cfg["names"])


def from_settings(settings):
    return AbstractMesh(settings.shape, settings.names)


def of_shape(shape):
    return AbstractMesh(shape, ("data", "model"))
