"""Abstract meshes of the plans, their sizes gathered from the configs."""

import jax
from jax.sharding import AbstractMesh, AxisType

from plans.config import AXES

EXPLICIT = (AxisType.Explicit,) * len(AXES)


def device_mesh():
    return jax.make_mesh((2, 4), AXES, axis_types=EXPLICIT)


def plan_mesh(cfg):
    return AbstractMesh(tuple(cfg.sizes[a] for a in AXES), AXES, axis_types=EXPLICIT)


def zipped_mesh(shape, names=AXES):
    sizes = dict(zip(names, shape))
    return AbstractMesh(tuple(sizes[n] for n in names), names, axis_types=EXPLICIT)


def appended_mesh(parallelism):
    shape = []
    for name in AXES:
        shape.append(parallelism[name])
    return AbstractMesh(tuple(shape), AXES, axis_types=EXPLICIT)


def split_mesh(devices, model):
    return AbstractMesh((devices // model, model), AXES, axis_types=EXPLICIT)
