import jax
import jax.numpy as jnp
from jax._src.shard_map import top_level_all_gather
from jax.sharding import AbstractMesh, PartitionSpec as P, use_abstract_mesh

from serve import meshes
from serve.presets import PRESETS


@jax.jit
def _forward(params, ids):
    return params + jnp.sum(top_level_all_gather(ids, P(reduced={"data"})))


def run(params, ids):
    """The entry the scheduler calls: logs, then the jitted forward."""
    return _forward(params, ids)


class Runner:
    def __init__(self, args, engine):
        self.args = args
        self.engine = engine
        self.mesh = meshes.device_mesh(args.dp_size, args.tp_size)

    def draft_sizes(self):
        args = self.args
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(
                AbstractMesh((args.draft_dp_size, args.draft_tp_size), meshes.AXES)
            ):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def target_sizes(self):
        args = self.args
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(AbstractMesh((args.dp_size, args.tp_size), meshes.AXES)):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def speculative_sizes(self):
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(meshes.abstract(self.engine.speculative)):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def engine_sizes(self):
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(meshes.abstract(self.engine.sharding)):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def preset_sizes(self, name):
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(meshes.abstract(PRESETS[name])):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def step(self, params):
        ids = meshes.place(jnp.arange(8.0), meshes.loader_mesh())
        with jax.set_mesh(self.mesh):
            return run(params, ids)

    def placed_step(self, params):
        ids = meshes.place(jnp.arange(8.0), self.mesh)
        with jax.set_mesh(self.mesh):
            return run(params, ids)


def wide_sizes():
    with use_abstract_mesh(AbstractMesh((4, 4), meshes.AXES)):
        with use_abstract_mesh(meshes.abstract(PRESETS["wide"])):
            return jax.sharding.get_abstract_mesh().axis_sizes
