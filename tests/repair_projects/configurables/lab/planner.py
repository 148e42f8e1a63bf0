"""Plans parameter shapes on an abstract mesh of the configured shape."""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from lab.configs import Buildable
from lab.meshing import resolve_shape


class Planner(Buildable):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.abstract_mesh = jax.sharding.AbstractMesh(
            resolve_shape(cfg.mesh_shape, device_count=len(jax.devices())),
            tuple(cfg.mesh_axes),
            axis_types=(jax.sharding.AxisType.Auto,) * len(cfg.mesh_shape),
        )

    def plan(self):
        with jax.sharding.use_abstract_mesh(self.abstract_mesh):
            shape = jax.eval_shape(lambda: jnp.zeros((16, 8)))
            return jax.ShapeDtypeStruct(
                shape.shape, shape.dtype, sharding=NamedSharding(self.abstract_mesh, P(None, "model"))
            )
