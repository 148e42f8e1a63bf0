import jax

from stages import meshes


class Runner:
    def __init__(self, config):
        self.config = config

    def probe_sizes(self):
        probe = self.config.probe
        inner = meshes.probe_mesh(probe.data, probe.model)
        with jax.set_mesh(meshes.train_mesh()):
            with jax.sharding.use_abstract_mesh(inner):
                return dict(jax.sharding.get_abstract_mesh().shape)


class Prober:
    def __init__(self, config):
        self.config = config

    def probe_sizes(self):
        with jax.set_mesh(meshes.train_mesh()):
            with jax.sharding.use_abstract_mesh(meshes.shaped_mesh(self.config.probe_shape)):
                return dict(jax.sharding.get_abstract_mesh().shape)
