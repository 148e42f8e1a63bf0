import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from stages import config
from stages.mesh import abstract_mesh


def _inside(axes, num_devices):
    with use_abstract_mesh(abstract_mesh(config.TRAIN_AXES, 8)):
        with use_abstract_mesh(abstract_mesh(axes, num_devices)):
            return jax.sharding.get_abstract_mesh().axis_sizes


def evaluate():
    return _inside(config.EVAL_AXES, config.EVAL_DEVICES)


def probe():
    return _inside(config.EVAL_AXES, 2)


def pod():
    return _inside(config.EVAL_AXES, jax.device_count() // 2)


def half():
    return _inside(config.EVAL_AXES, config.HALF)


def small():
    """Runs: HALF fills a mesh of size 4."""
    with use_abstract_mesh(AbstractMesh((2, 2), ("batch", "model"))):
        with use_abstract_mesh(abstract_mesh(config.EVAL_AXES, config.HALF)):
            return jax.sharding.get_abstract_mesh().axis_sizes
