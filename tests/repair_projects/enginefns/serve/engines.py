import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AbstractMesh, AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


class Engine:
    def __init__(self, devices, scale, width):
        self.scale = scale
        self.mesh = Mesh(np.asarray(devices).reshape((len(devices),)), ("x",))
        self.state_mesh = AbstractMesh((width,), ("x",), axis_types=(AxisType.Auto,))
        self._step = jax.jit(
            self._double, out_shardings=NamedSharding(self.state_mesh, P("x"))
        )

    def _double(self, x):
        return x * self.scale

    def step(self):
        x = jax.device_put(jnp.ones((8,)), NamedSharding(self.mesh, P("x")))
        return float(self._step(x).sum())
