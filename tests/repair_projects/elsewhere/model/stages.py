"""Stages whose keywords, shardings and abstract meshes come from model/settings.py."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec

from model.settings import CHECKED_KWARGS, ROWS, SERVE_ABSTRACT, SHARD_KWARGS
from model.steps import serve_step


def _total(x):
    return jax.lax.psum(x.sum(), "x")


def total(x):
    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    f = jax.shard_map(_total, mesh=mesh, **SHARD_KWARGS)
    return f(x)


def checked_total(x):
    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    f = jax.shard_map(_total, mesh=mesh, **CHECKED_KWARGS)
    return f(x)


def zeros():
    mesh = jax.make_mesh((8,), ("x",))
    with jax.set_mesh(mesh):
        z = jnp.zeros((8,), out_sharding=ROWS)
    return z.sharding.spec


def lowered_text():
    mesh = jax.make_mesh((8,), ("x",))
    x = jax.device_put(np.arange(8.0), NamedSharding(mesh, PartitionSpec("x")))
    spec = jax.ShapeDtypeStruct(
        (8,), jnp.float32, sharding=NamedSharding(SERVE_ABSTRACT, PartitionSpec("x"))
    )
    return jax.jit(lambda a, b: (a, b)).lower(x, spec).as_text()


def served_text():
    mesh = jax.make_mesh((4,), ("x",), devices=jax.devices()[:4])
    x = jax.device_put(np.arange(8.0), NamedSharding(mesh, PartitionSpec("x")))
    spec = jax.ShapeDtypeStruct(
        (8,), jnp.float32, sharding=NamedSharding(SERVE_ABSTRACT, PartitionSpec("x"))
    )
    return jax.jit(lambda a, b: (a, b)).lower(x, spec).as_text()


def served_on_every_device():
    mesh = jax.make_mesh((8,), ("x",))
    x = jax.device_put(np.arange(8.0), NamedSharding(mesh, PartitionSpec("x")))
    return serve_step(x)


def served_on_four_devices():
    mesh = jax.make_mesh((4,), ("x",), devices=jax.devices()[:4])
    x = jax.device_put(np.arange(8.0), NamedSharding(mesh, PartitionSpec("x")))
    return serve_step(x)
