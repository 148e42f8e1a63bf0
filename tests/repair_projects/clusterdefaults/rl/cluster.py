import jax

from rl import meshes


def _planned(outer, shape):
    with jax.set_mesh(outer):
        with jax.sharding.use_abstract_mesh(meshes.planning_mesh(shape)):
            return dict(jax.sharding.get_abstract_mesh().shape)


class RLCluster:
    def __init__(self, *, cluster_config):
        self.cluster_config = cluster_config

    def sampler_sizes(self):
        config = self.cluster_config
        return _planned(config.actor_mesh, config.sampler_shape)

    def reference_sizes(self):
        config = self.cluster_config
        return _planned(config.actor_mesh, config.reference_shape)


class Rollout:
    def __init__(self, rollout_config):
        self.rollout_config = rollout_config

    def plan_sizes(self):
        config = self.rollout_config
        return _planned(config.actor_mesh, config.plan_shape)
