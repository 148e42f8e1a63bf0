"""Meshes over the host's devices, memoized per axis name."""
import functools

import jax


@functools.lru_cache(maxsize=None)
def host_mesh(axis="batch"):
    mesh = jax.make_mesh((jax.device_count(),), (axis,))
    return mesh.abstract_mesh


@functools.lru_cache(maxsize=None)
def planning_mesh(axis="batch"):
    mesh = jax.make_mesh((jax.device_count(),), (axis,))
    return mesh.abstract_mesh
