"""A serving step jitted once, its output on the serving abstract mesh of model/settings.py."""

import jax
from jax.sharding import NamedSharding, PartitionSpec

from model.settings import SERVE_ABSTRACT

serve_step = jax.jit(
    lambda a: a * 2, out_shardings=NamedSharding(SERVE_ABSTRACT, PartitionSpec("x"))
)
