"""Losses gathered into the training mesh; the meshes come in a NamedTuple container."""

from typing import NamedTuple

import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import NamedSharding, PartitionSpec

AXES = ("data", "model")
EXPLICIT = (jax.sharding.AxisType.Explicit,) * 2


class Meshes(NamedTuple):
    train: jax.sharding.Mesh
    eval: jax.sharding.Mesh


def create_meshes():
    return Meshes(
        train=jax.make_mesh((4, 2), AXES, axis_types=EXPLICIT),
        eval=jax.make_mesh((8, 1), AXES, axis_types=EXPLICIT),
    )


def gather_eval_losses(losses):
    meshes = create_meshes()
    losses = jax.device_put(losses, NamedSharding(meshes.eval, PartitionSpec("data")))
    out_sharding = NamedSharding(meshes.train, PartitionSpec(reduced={"data"}))

    @jax.jit
    def _sum(x):
        return top_level_all_gather(x, out_sharding).sum()

    with jax.set_mesh(meshes.train):
        return _sum(losses)


def gather_train_losses(losses):
    meshes = create_meshes()
    losses = jax.device_put(losses, NamedSharding(meshes.train, PartitionSpec("data")))
    out_sharding = NamedSharding(meshes.train, PartitionSpec(reduced={"data"}))

    @jax.jit
    def _sum(x):
        return top_level_all_gather(x, out_sharding).sum()

    with jax.set_mesh(meshes.train):
        return _sum(losses)
