import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from roles import config, meshes


def role_sizes(role, outer):
    with use_abstract_mesh(AbstractMesh(outer, config.AXES)):
        with use_abstract_mesh(meshes.abstract(config.MESH[role])):
            return jax.sharding.get_abstract_mesh().axis_sizes


def serve_sizes(name, outer):
    with use_abstract_mesh(AbstractMesh(outer, config.AXES)):
        with use_abstract_mesh(meshes.serving(name)):
            return jax.sharding.get_abstract_mesh().axis_sizes
