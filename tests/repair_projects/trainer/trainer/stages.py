import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from trainer.meshes import stage_mesh


def eval_sizes():
    with use_abstract_mesh(stage_mesh()):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            return jax.sharding.get_abstract_mesh().axis_sizes
