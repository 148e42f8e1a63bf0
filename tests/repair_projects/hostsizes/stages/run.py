import jax
from jax.sharding import get_abstract_mesh, use_abstract_mesh

from stages.config import STAGES, serve_mesh
from stages.mesh import abstract_mesh, device_mesh


def stage_sizes(name):
    shape = STAGES[name]["mesh"]
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(abstract_mesh(shape)):
            return get_abstract_mesh().axis_sizes


def pod_sizes():
    shape = STAGES["pod"]["mesh"]
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(abstract_mesh(shape)):
            return get_abstract_mesh().axis_sizes


def serve_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(abstract_mesh(serve_mesh())):
            return get_abstract_mesh().axis_sizes
