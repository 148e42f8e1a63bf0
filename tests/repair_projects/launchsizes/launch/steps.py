import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from launch import meshes


def host_sizes():
    with jax.set_mesh(jax.make_mesh((8,), ("x",))):
        with jax.sharding.use_abstract_mesh(meshes.host_mesh()):
            return jax.sharding.get_abstract_mesh().axis_sizes


def slice_sizes():
    with jax.set_mesh(jax.make_mesh((8,), ("x",))):
        with jax.sharding.use_abstract_mesh(meshes.slice_mesh()):
            return jax.sharding.get_abstract_mesh().axis_sizes


def zeros_on(mesh):
    return jnp.zeros((8, 8), out_sharding=NamedSharding(mesh, P("data", "model")))


def launched_zeros():
    with jax.set_mesh(meshes.device_mesh()):
        return zeros_on(meshes.launched_mesh()).shape


def serving_zeros():
    with jax.set_mesh(meshes.device_mesh()):
        return zeros_on(meshes.serving_mesh()).shape


def doubled(sharding):
    x = jax.device_put(jnp.arange(8.0), NamedSharding(jax.make_mesh((8,), ("x",)), P("x")))
    return jax.jit(lambda a: a * 2, out_shardings=sharding)(x)


def target_doubled():
    return float(doubled(meshes.target_sharding()).sum())


def pod_doubled():
    return float(doubled(meshes.pod_sharding()).sum())
