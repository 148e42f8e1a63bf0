"""Lowers a function for a serving topology that has no devices here."""

import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P

SERVING = AbstractMesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)


def abstract_input(shape):
    return jax.ShapeDtypeStruct(
        shape, jnp.float32, sharding=NamedSharding(SERVING, P("data"))
    )


def lower_for_serving(fn, shape, platforms=None):
    traced = jax.jit(fn).trace(abstract_input(shape))
    return traced.lower(lowering_platforms=platforms)
