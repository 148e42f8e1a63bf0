import jax
from jax.sharding import AxisType


def create_device_mesh(ici_parallelism):
    return jax.make_mesh(
        tuple(ici_parallelism), ("data", "tensor"), axis_types=(AxisType.Explicit,) * 2
    )
