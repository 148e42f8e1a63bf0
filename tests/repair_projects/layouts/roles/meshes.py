from jax.sharding import AbstractMesh

from roles import config


def abstract(layout):
    shape, axes = layout
    return AbstractMesh(shape, axes)


def serving(name):
    return AbstractMesh(tuple(config.SERVING[name]["mesh_shape"]), config.AXES)
