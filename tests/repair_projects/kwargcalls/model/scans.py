"""Stages that read their shard_map keywords as attributes of the settings module."""

import jax
import jax.numpy as jnp
from jax.sharding import AxisType

from model import settings


def _total(x):
    return jax.lax.psum(x.sum(), "x")


def scan_total():
    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    f = jax.shard_map(_total, mesh=mesh, **settings.SCAN_KWARGS)
    return float(f(jnp.arange(8.0)))


def checked_total():
    mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    f = jax.shard_map(_total, mesh=mesh, **settings.CHECKED_KWARGS)
    return float(f(jnp.arange(8.0)))
