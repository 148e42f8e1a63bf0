"""Ahead-of-time lowering for the serving topology, which has no devices here."""

import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

from serving import params


def aot_lower(name):
    model = params.get(name)
    mesh = AbstractMesh(model.ICI_MESH_SHAPE, ("data", "mdl"))
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("mdl")))
    traced = jax.jit(jnp.sin).trace(x)
    return traced.lower(lowering_platforms=model.aot_platforms())
