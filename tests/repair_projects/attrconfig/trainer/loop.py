import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from trainer.config import probe_mesh


def abstract(cfg):
    return AbstractMesh(tuple(cfg.shape), tuple(cfg.axes))


class Trainer:
    def __init__(self, config):
        self.config = config
        self.mesh = abstract(config.mesh)

    def eval_sizes(self):
        with use_abstract_mesh(self.mesh):
            with use_abstract_mesh(abstract(self.config.eval_mesh)):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def serve_sizes(self):
        with use_abstract_mesh(self.mesh):
            with use_abstract_mesh(abstract(self.config.serve_mesh)):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def wide_serve_sizes(self):
        with use_abstract_mesh(AbstractMesh((8, 2), ("data", "model"))):
            with use_abstract_mesh(abstract(self.config.serve_mesh)):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def probe_sizes(self):
        with use_abstract_mesh(self.mesh):
            with use_abstract_mesh(abstract(probe_mesh())):
                return jax.sharding.get_abstract_mesh().axis_sizes
