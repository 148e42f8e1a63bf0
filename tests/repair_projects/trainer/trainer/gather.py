import jax
from jax.sharding import AxisType, PartitionSpec as P
from jax._src.shard_map import top_level_all_gather

from trainer.meshes import batch

model_mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def gathered_batch():
    x = batch()
    with jax.set_mesh(model_mesh):
        y = top_level_all_gather(x, P(reduced={"x"}))
    return y.tolist(), dict(y.sharding.mesh.shape)
