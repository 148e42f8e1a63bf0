"""Runs evaluation steps, each a function and its config."""

import dataclasses
from typing import Any, Callable

import jax
from jax.sharding import AxisType

from evals.cache import allocate


@dataclasses.dataclass(frozen=True)
class Step:
    fn: Callable[[Any], Any]
    config: Any


def evaluate(config):
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        return allocate(config).shape


def run(steps):
    return [step.fn(step.config) for step in steps]
