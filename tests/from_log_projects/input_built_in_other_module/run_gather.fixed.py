# code: JAX003
# static: fixed
# result: [0, 1, 2, 3, 4, 5, 6, 7] {'x': 4, 'y': 2}
import jax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
from jax._src.shard_map import top_level_all_gather

from gather_data import batch

model_mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
x = batch()
with jax.set_mesh(model_mesh):
    y = top_level_all_gather(
        jax.device_put(x, NamedSharding(model_mesh, jax.typeof(x).sharding.spec)),
        P(reduced={"x"}),
    )
print(y.tolist(), dict(y.sharding.mesh.shape))
