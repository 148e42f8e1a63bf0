"""Auto-era constraints: with_sharding_constraint of a bare spec in jitted functions that run
under a make_mesh mesh (Explicit axes by default since JAX 0.9)."""

import jax
from jax.sharding import PartitionSpec


@jax.jit
def _doubled(x):
    return jax.lax.with_sharding_constraint(x * 2, PartitionSpec("data", None))


def doubled_rows(x):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    with jax.set_mesh(mesh):
        return _doubled(x)


@jax.jit
def _tripled(x):
    return jax.lax.with_sharding_constraint(x * 3, PartitionSpec("data", None))


def tripled_placed_rows(x):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    with jax.set_mesh(mesh):
        return _tripled(jax.device_put(x, PartitionSpec("data", None)))
