import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from presets import meshes
from presets.configs import CONFIGS


class Runner:
    def __init__(self, cfg):
        self.cfg = cfg
        self.mesh = meshes.device_mesh(cfg.mesh_shape)
        if cfg.decode_shape is not None:
            self.decode_mesh = meshes.device_mesh(cfg.decode_shape)

    def eval_sizes(self):
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(AbstractMesh(self.cfg.eval_shape, meshes.NAMES, axis_types=meshes.EXPLICIT)):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def decode_sizes(self):
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(self.decode_mesh.abstract_mesh):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def layout_sizes(self, name):
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(meshes.LAYOUTS[name].abstract()):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def host_sizes(self):
        host = meshes.host_mesh(meshes.HOST_SHAPE)
        with jax.set_mesh(self.mesh):
            with use_abstract_mesh(host.abstract_mesh):
                return jax.sharding.get_abstract_mesh().axis_sizes


def runner(name):
    return Runner(CONFIGS[name]())


def host_only_sizes():
    with jax.set_mesh(meshes.host_mesh(meshes.HOST_SHAPE)):
        return jax.sharding.get_abstract_mesh().axis_sizes
