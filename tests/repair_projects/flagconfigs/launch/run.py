import jax
from jax.sharding import AbstractMesh

from launch import flags_def

AXES = ("data", "model")


def sizes_inside(outer, inner):
    with jax.sharding.use_abstract_mesh(AbstractMesh(tuple(outer), AXES)):
        with jax.sharding.use_abstract_mesh(AbstractMesh(tuple(inner), AXES)):
            return jax.sharding.get_abstract_mesh().axis_sizes


def eval_axes():
    return sizes_inside(flags_def.train_shape(), flags_def.eval_shape())


def probe_axes():
    return sizes_inside(flags_def.train_shape(), flags_def.probe_shape())


def sliced_axes():
    return sizes_inside((4, 4), flags_def.sliced_shape())
