"""A step still made by jax.experimental.pjit, with PartitionSpecs, under jax.set_mesh (which
pjit ignores)."""

import jax
import numpy as np
from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec


def doubled_under_set_mesh():
    mesh = jax.make_mesh((8,), ("x",))
    with jax.set_mesh(mesh):
        double = pjit(
            lambda a: a * 2,
            in_shardings=PartitionSpec("x"),
            out_shardings=PartitionSpec("x"),
        )
        return double(np.arange(8.0))
