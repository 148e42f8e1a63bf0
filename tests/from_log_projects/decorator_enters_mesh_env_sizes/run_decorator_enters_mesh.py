# code: JAX002
# static: unfixed (a decorator from another module enters the enclosing mesh, sized by an environment variable)
# result: eval (8, 4) (4,)
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, use_abstract_mesh

from stage_meshes import in_stage_mesh


@in_stage_mesh
def evaluate(x):
    with use_abstract_mesh(AbstractMesh((4, 4), ("data", "model"))):
        out = jax.eval_shape(lambda a: a * 2, x)
        return jax.sharding.get_abstract_mesh().axis_sizes, out.shape


sizes, shape = evaluate(jax.ShapeDtypeStruct((4,), jnp.float32))
print("eval", sizes, shape)
