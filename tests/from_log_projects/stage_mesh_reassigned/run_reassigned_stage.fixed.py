# code: JAX002
# static: unfixed (the enclosing mesh's sizes come from an environment variable)
# result: stage (8, 4) (8, 4) (16, 8)
import os

import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P, use_abstract_mesh

OUTER = AbstractMesh((int(os.environ.get("JAXFIX_EXAMPLE_OUTER_DATA", "8")), 4), ("data", "model"))


def stage():
    inner = AbstractMesh((4, 4), ("data", "model"))
    inner = AbstractMesh((8, 4), ("data", "model"))
    with use_abstract_mesh(OUTER):
        with use_abstract_mesh(inner):
            x = jax.ShapeDtypeStruct((16, 8), jnp.float32, sharding=NamedSharding(inner, P("data")))
            out = jax.eval_shape(lambda a: a * 2, x)
            return jax.sharding.get_abstract_mesh().axis_sizes, x.sharding.mesh.axis_sizes, out.shape


print("stage", *stage())
