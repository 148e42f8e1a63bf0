"""Quantization recipes chosen by name; each reduces amax over its own (dp, tp) mesh."""

from contextlib import contextmanager
from dataclasses import dataclass

import jax

from models import layouts


@dataclass
class Recipe:
    margin: int = 0
    amax_mesh_shape: tuple[int, int] = (4, 2)


@dataclass
class DelayedScaling(Recipe):
    history: int = 16


@dataclass
class BlockScaling(Recipe):
    amax_mesh_shape: tuple[int, int] = (8, 1)


@dataclass
class TiledScaling(Recipe):
    amax_mesh_shape: tuple[int, int] = (2, 2)


def recipe_from_name(name):
    match name:
        case "delayed":
            return DelayedScaling()
        case "block":
            return BlockScaling()
        case "tiled":
            return TiledScaling()
        case _:
            raise ValueError(f"no recipe {name}")


@contextmanager
def autocast(recipe=None):
    if recipe is None:
        recipe = DelayedScaling()
    amax_mesh = layouts.create_abstract_mesh(*recipe.amax_mesh_shape)
    with jax.sharding.use_abstract_mesh(amax_mesh):
        yield recipe


def amax_sizes(mesh, name):
    with jax.set_mesh(mesh), autocast(recipe_from_name(name)):
        return tuple(jax.sharding.get_abstract_mesh().axis_sizes)
