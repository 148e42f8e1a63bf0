import jax
from jax.sharding import get_abstract_mesh, use_abstract_mesh

from plans import config
from plans.meshes import appended_mesh, device_mesh, plan_mesh, split_mesh, zipped_mesh


def train_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(plan_mesh(config.TRAIN)):
            return get_abstract_mesh().axis_sizes


def eval_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(plan_mesh(config.EVAL)):
            return get_abstract_mesh().axis_sizes


def score_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(zipped_mesh(config.SCORE_SHAPE)):
            return get_abstract_mesh().axis_sizes


def probe_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(appended_mesh(config.PROBE_PARALLELISM)):
            return get_abstract_mesh().axis_sizes


def serve_sizes():
    with jax.set_mesh(device_mesh()):
        with use_abstract_mesh(split_mesh(config.SERVE_DEVICES, config.SERVE_MODEL)):
            return get_abstract_mesh().axis_sizes
