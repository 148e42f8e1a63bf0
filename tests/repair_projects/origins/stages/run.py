import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from stages import config
from stages.meshes import from_dict, from_settings, of_shape
from stages.serving import SERVING
from stages.shapes import SHAPE

OUTER = ("data", "model")


def evaluate():
    """The eval stage runs inside the training mesh (size 8)."""
    with use_abstract_mesh(from_dict(config.TRAIN["mesh"])):
        with use_abstract_mesh(from_dict(config.EVAL["mesh"])):
            return jax.sharding.get_abstract_mesh().axis_sizes


def serve():
    with use_abstract_mesh(AbstractMesh((2, 4), OUTER)):
        with use_abstract_mesh(from_settings(SERVING)):
            return jax.sharding.get_abstract_mesh().axis_sizes


def wide():
    """Runs: SHAPE fits a mesh of size 16."""
    with use_abstract_mesh(AbstractMesh((8, 2), OUTER)):
        with use_abstract_mesh(of_shape(SHAPE)):
            return jax.sharding.get_abstract_mesh().axis_sizes


def narrow():
    with use_abstract_mesh(AbstractMesh((2, 4), OUTER)):
        with use_abstract_mesh(of_shape(SHAPE)):
            return jax.sharding.get_abstract_mesh().axis_sizes
