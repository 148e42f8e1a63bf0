# code: JAX001
# static: unfixed (a decorator from another module enters the mesh; its sizes come from an environment variable)
# options: --unsafe-fixes
# result: compiled 8
import jax
import jax.numpy as jnp

from serving_meshes import under_serving_mesh


@under_serving_mesh
def compile_step(x):
    return jax.jit(lambda a: a.sum(axis=0)).trace(x).lower(
        lowering_platforms=(jax.export.default_export_platform(),),
    ).compile(device_assignment=tuple(jax.devices()[:8]))


compiled = compile_step(jax.ShapeDtypeStruct((8, 8), jnp.float32))
print("compiled", len(compiled.input_shardings[0][0].device_set))
