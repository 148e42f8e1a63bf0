"""Training: data-parallel over the eight devices."""

import jax

from runtime.strategy import GlobalMesh


def strategy():
    return GlobalMesh(
        mesh=jax.sharding.AbstractMesh(
            (8,), ("data",), axis_types=(jax.sharding.AxisType.Explicit,)
        )
    )
