"""Functions compiled ahead of time for shapes on an abstract mesh whose data-parallel size
the launcher sets (an environment variable): the code does not show the mesh's size."""

import os

import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding
from jax.sharding import PartitionSpec as P

AXES = ("x", "y")


def data_parallel():
    return int(os.environ.get("DATA_PARALLEL", "2"))


def compiled_sin():
    mesh = AbstractMesh((data_parallel(), 4), AXES)
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
    return jax.jit(jnp.sin).trace(x).lower().compile()


def compiled_cos():
    """Its mesh is built where its sharding is: the argument is named."""
    x = jax.ShapeDtypeStruct(
        (8, 8),
        jnp.float32,
        sharding=NamedSharding(AbstractMesh((data_parallel(), 4), AXES), P("x")),
    )
    return jax.jit(jnp.cos).trace(x).lower().compile()


def compiled_exp():
    """Its argument is built in the call: neither it nor its mesh is named."""
    sharding = NamedSharding(AbstractMesh((data_parallel(), 4), AXES), P("x"))
    return (
        jax.jit(jnp.exp)
        .trace(jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=sharding))
        .lower()
        .compile()
    )


def compiled_on_devices():
    mesh = jax.make_mesh((data_parallel(), 4), AXES)
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
    return jax.jit(jnp.tan).trace(x).lower().compile()
