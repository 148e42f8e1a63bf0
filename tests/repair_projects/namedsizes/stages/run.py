import jax
from jax.sharding import get_abstract_mesh, use_abstract_mesh

from stages.config import STAGES
from stages.mesh import abstract_mesh, device_mesh, strict_abstract_mesh


def stage_sizes(name):
    sizes = STAGES[name]
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(abstract_mesh(sizes)):
            return get_abstract_mesh().axis_sizes


def probe_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(abstract_mesh(STAGES["probe"])):
            return get_abstract_mesh().axis_sizes


def strict_stage_sizes(name):
    sizes = STAGES[name]
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(strict_abstract_mesh(sizes)):
            return get_abstract_mesh().axis_sizes
