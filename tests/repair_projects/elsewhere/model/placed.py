"""A step made by jax.experimental.pjit on NamedShardings: it warns, and runs."""

import jax
import numpy as np
from jax.experimental.pjit import pjit
from jax.sharding import NamedSharding, PartitionSpec


def doubled_on_named_shardings():
    mesh = jax.make_mesh((8,), ("x",))
    rows = NamedSharding(mesh, PartitionSpec("x"))
    double = pjit(lambda a: a * 2, in_shardings=rows, out_shardings=rows)
    return double(np.arange(8.0))
