"""The experiments the tests run."""

from lab.fitter import Fitter
from lab.planner import Planner


def small_plan():
    cfg = Planner.config()
    cfg.mesh_shape = (2, 2)
    return cfg


def inferred_plan():
    cfg = Planner.config()
    cfg.mesh_shape = (-1, 2)
    return cfg


def fit():
    cfg = Fitter.config()
    cfg.mesh_shape = (-1, 4)
    return cfg
