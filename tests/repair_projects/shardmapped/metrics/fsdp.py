"""Mesh helpers."""
import jax
from jax.sharding import AxisType


def create_mesh(num_devices=None):
    n = num_devices or jax.device_count()
    return jax.make_mesh((n,), ("data",))


def create_eval_mesh():
    return jax.make_mesh((jax.device_count(),), ("data",), axis_types=(AxisType.Auto,))
