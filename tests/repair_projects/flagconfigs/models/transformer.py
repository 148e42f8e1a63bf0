import jax
from jax.sharding import AbstractMesh


class Transformer:
    """Holds its config; builds its meshes when asked."""

    def __init__(self, config):
        self.config = config
        self.mesh = AbstractMesh(tuple(config.mesh_shape), config.mesh_axes)

    def decode_sizes(self):
        decode = AbstractMesh(tuple(self.config.decode_mesh_shape), self.config.mesh_axes)
        with jax.sharding.use_abstract_mesh(self.mesh):
            with jax.sharding.use_abstract_mesh(decode):
                return jax.sharding.get_abstract_mesh().axis_sizes
