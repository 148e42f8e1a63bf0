"""Meshes from (name, size) pairs, and placement helpers."""

import math

import jax
from jax._src.shard_map import top_level_all_gather
from jax.sharding import AxisType, NamedSharding


def from_axes(axes, devices=None):
    devices = jax.devices() if devices is None else devices
    names = tuple(name for name, _ in axes)
    sizes = [size for _, size in axes]
    if -1 in sizes:
        sizes[sizes.index(-1)] = len(devices) // -math.prod(sizes)
    return jax.make_mesh(
        tuple(sizes), names, axis_types=(AxisType.Explicit,) * len(names), devices=devices[: math.prod(sizes)]
    )


def place(host, shapes, mesh):
    """Places each host array on `mesh` as its shape's spec says."""
    with jax.set_mesh(mesh):
        return jax.tree.map(lambda x, s: jax.device_put(x, NamedSharding(mesh, s.sharding.spec)), host, shapes)


def gather(x, out_sharding):
    return top_level_all_gather(x, out_sharding)
