"""Device meshes for the model and its stages."""

import jax
from jax.sharding import AxisType

DEFAULT_AXES = ("data", "model")


def create_device_mesh(parallelism, axis_names=DEFAULT_AXES):
    """A mesh of `parallelism` devices along `axis_names`."""
    return jax.make_mesh(tuple(parallelism), tuple(axis_names))


def create_serving_mesh(parallelism, axis_names=DEFAULT_AXES):
    return jax.make_mesh(
        tuple(parallelism),
        tuple(axis_names),
        axis_types=(AxisType.Auto,) * len(axis_names),
    )
