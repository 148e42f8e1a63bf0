import os

import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from stages.config import load
from stages.hosts import chips_per_host, cores_per_host

OUTER = ("data", "model")
DEFAULT_EXPERTS = 4


class Stage:
    def __init__(self, name):
        self.config = load(name)

    def experts(self):
        """-1 in the stage's settings: the default."""
        return (
            self.config.expert_parallelism
            if self.config.expert_parallelism != -1
            else DEFAULT_EXPERTS
        )

    def sizes(self):
        with use_abstract_mesh(AbstractMesh((2, 4), OUTER)):
            with use_abstract_mesh(AbstractMesh((self.experts(), 4), ("expert", "model"))):
                return jax.sharding.get_abstract_mesh().axis_sizes

    def launched_sizes(self):
        """The launcher may ask for the stage's own settings: the run does not say if it did."""
        experts = (
            self.config.expert_parallelism
            if os.environ.get("EXPERTS_FROM_CONFIG")
            else 4
        )
        with use_abstract_mesh(AbstractMesh((2, 4), OUTER)):
            with use_abstract_mesh(AbstractMesh((experts, 4), ("expert", "model"))):
                return jax.sharding.get_abstract_mesh().axis_sizes


def host_sizes():
    with use_abstract_mesh(AbstractMesh((2, 4), OUTER)):
        with use_abstract_mesh(AbstractMesh((chips_per_host(), 4), ("expert", "model"))):
            return jax.sharding.get_abstract_mesh().axis_sizes


def core_sizes():
    with use_abstract_mesh(AbstractMesh((2, 4), OUTER)):
        with use_abstract_mesh(AbstractMesh((cores_per_host(), 4), ("expert", "model"))):
            return jax.sharding.get_abstract_mesh().axis_sizes
