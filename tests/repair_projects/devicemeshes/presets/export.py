import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

from presets import meshes


def batch_spec(shape):
    mesh = AbstractMesh(shape, meshes.NAMES, axis_types=meshes.EXPLICIT)
    return jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NamedSharding(mesh, P("data")))


SPEC_MAKERS = {"batch": batch_spec}


def export_step(name, shape):
    spec = SPEC_MAKERS[name](shape)
    return jax.jit(lambda x: x * 2).lower(spec)


def export_on_devices():
    x = jax.device_put(jnp.ones((8, 4)), NamedSharding(meshes.device_mesh((2, 4)), P("data")))
    return jax.jit(lambda x: x * 2).lower(x)
