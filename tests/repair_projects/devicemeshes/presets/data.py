import jax
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P


def explicit(n):
    return (AxisType.Explicit,) * n


def data_mesh(hosts):
    return jax.make_mesh((hosts,), ("batch",))


def model_mesh():
    return jax.make_mesh((2, 4), ("data", "model"), axis_types=explicit(2))


def shard_batch(x, hosts=8):
    return jax.lax.with_sharding_constraint(x, NamedSharding(data_mesh(hosts), P("batch")))
