import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

loader_mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def batch():
    return jax.device_put(jnp.arange(8), NamedSharding(loader_mesh, P("x")))
