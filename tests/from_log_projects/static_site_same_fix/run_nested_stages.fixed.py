# code: JAX002
# static: fixed
# result: stage2 (8, 4) (16, 8)
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, use_abstract_mesh

x = jax.ShapeDtypeStruct((16, 8), jnp.float32)

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        out = jax.eval_shape(lambda a: a * 2, x)
        sizes = jax.sharding.get_abstract_mesh().axis_sizes
print("stage2", sizes, out.shape)
