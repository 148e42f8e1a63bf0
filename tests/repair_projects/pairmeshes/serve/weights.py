"""Weights: their shapes on a mesh, and loading them onto it."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

from serve import meshes


def shapes(settings, mesh):
    return {
        "head": jax.ShapeDtypeStruct(
            (settings.hidden, settings.classes * 2), jnp.float32, sharding=NamedSharding(mesh, P(None, "model"))
        )
    }


def host_weights(settings):
    planned = shapes(settings, meshes.from_axes(settings.axes).abstract_mesh)
    return {k: np.ones(v.shape, np.float32) for k, v in planned.items()}


def load(settings):
    mesh = meshes.from_axes(settings.axes).abstract_mesh
    return meshes.place(host_weights(settings), shapes(settings, mesh), mesh)
