import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from trainer.meshes import serving_mesh


def double(a):
    return a * 2


def export_double():
    spec = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(serving_mesh(), P("x", "y")))
    lowered = jax.jit(double).lower(spec)
    return "stablehlo" in lowered.as_text()
