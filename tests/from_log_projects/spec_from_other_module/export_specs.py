import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

SERVING_MESH = AbstractMesh((2, 4), ("x", "y"))
BATCH = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(SERVING_MESH, P("x", "y")))
