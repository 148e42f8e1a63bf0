import sys

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from serve import settings as settings_module
from serve.topology import abstract_mesh


def generate(settings):
    devices = jax.make_mesh((8, 1), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    tokens = jax.device_put(jnp.zeros((16,)), NamedSharding(devices, P("data")))
    out = NamedSharding(abstract_mesh(settings), P("data"))
    step = jax.jit(lambda x: x + 1.0, out_shardings=out)
    return step(tokens)


if __name__ == "__main__":
    print(generate(settings_module.load(sys.argv[1])).shape)
