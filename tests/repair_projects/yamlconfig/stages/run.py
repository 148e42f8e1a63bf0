import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from stages import config
from stages.meshes import from_stage

OUTER = ("data", "model")


def evaluate():
    """The eval stage runs inside the training mesh (size 8)."""
    with use_abstract_mesh(from_stage(config.STAGES["train"])):
        with use_abstract_mesh(from_stage(config.STAGES["eval"])):
            return jax.sharding.get_abstract_mesh().axis_sizes


def wide():
    """Runs: the wide stage's settings (the serve stage's, by an alias) fit a mesh of size 16."""
    with use_abstract_mesh(AbstractMesh((8, 2), OUTER)):
        with use_abstract_mesh(from_stage(config.STAGES["wide"])):
            return jax.sharding.get_abstract_mesh().axis_sizes


def narrow():
    """The serve stage inside a mesh of size 8: its entry is the wide stage's too."""
    with use_abstract_mesh(AbstractMesh((2, 4), OUTER)):
        with use_abstract_mesh(from_stage(config.STAGES["serve"])):
            return jax.sharding.get_abstract_mesh().axis_sizes
