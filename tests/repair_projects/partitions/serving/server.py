import jax
from jax.sharding import get_abstract_mesh, use_abstract_mesh

from serving.meshes import batch_mesh, device_mesh, replica_mesh


def replica_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(replica_mesh()):
            return get_abstract_mesh().axis_sizes


def batch_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(batch_mesh()):
            return get_abstract_mesh().axis_sizes
