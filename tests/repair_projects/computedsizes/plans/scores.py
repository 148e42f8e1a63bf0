"""Scores laid out on a host mesh of pairs of devices."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from plans.meshes import EXPLICIT, device_mesh


def host_mesh():
    devices = np.array(jax.devices()).reshape(jax.device_count() // 2, 2)
    return Mesh(devices, ("replica", "model"), axis_types=EXPLICIT)


class Scorer:
    def __init__(self):
        self.layout = NamedSharding(host_mesh(), P("replica", "model"))

    def blank(self):
        with jax.set_mesh(device_mesh()):
            return jnp.zeros((8, 8), out_sharding=self.layout)
