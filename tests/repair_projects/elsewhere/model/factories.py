"""Output shardings a factory function makes: on another mesh than the context's, or on it."""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec


def rows_of(mesh):
    return NamedSharding(mesh, PartitionSpec("x"))


def zeros_on_other_rows():
    mesh = jax.make_mesh((8,), ("x",))
    other = jax.make_mesh((4, 2), ("x", "y"))
    with jax.set_mesh(mesh):
        z = jnp.zeros((8,), out_sharding=rows_of(other))
    return z.sharding.spec


def zeros_on_own_rows():
    mesh = jax.make_mesh((8,), ("x",))
    with jax.set_mesh(mesh):
        z = jnp.zeros((8,), out_sharding=rows_of(mesh))
    return z.sharding.spec
