"""A pod slice: sixteen devices, more than the run's host has."""

import jax

from runtime.strategy import GlobalMesh


def strategy():
    return GlobalMesh(
        mesh=jax.sharding.AbstractMesh(
            (16,), ("data",), axis_types=(jax.sharding.AxisType.Explicit,)
        )
    )
