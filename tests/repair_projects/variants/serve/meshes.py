"""Mesh factories: partials of one factory, each holding its sizes."""

import functools

from jax.sharding import AbstractMesh, use_abstract_mesh

NAMES = ("data", "model")


def make_mesh_for(names, shape):
    return AbstractMesh(shape, names)


SMALL = functools.partial(make_mesh_for, shape=(2, 2))
WIDE = functools.partial(make_mesh_for, shape=(4, 2))


def stage_sizes(factory):
    """Runs `factory`'s mesh inside the (2, 4) serving mesh."""
    with use_abstract_mesh(AbstractMesh((2, 4), NAMES)):
        with use_abstract_mesh(factory(NAMES)):
            return factory(NAMES).axis_sizes


def config_sizes(cfg):
    with use_abstract_mesh(AbstractMesh(cfg.outer, NAMES)):
        with use_abstract_mesh(AbstractMesh(cfg.inner, NAMES)):
            return cfg.inner


def accel_sizes(shape):
    with use_abstract_mesh(AbstractMesh((2, 4), NAMES)):
        with use_abstract_mesh(AbstractMesh(shape, NAMES)):
            return shape


class Stage:
    """Holds its mesh factory as a partial."""

    def __init__(self):
        self._factory = functools.partial(make_mesh_for, shape=(1, 4))

    def sizes(self):
        return stage_sizes(self._factory)
