import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from weights import transfer
from weights.roles import Role


class WeightPool:

    def __init__(self, role_to_mesh):
        self.meshes = role_to_mesh
        train = self.meshes[Role.TRAIN]
        self.params = {
            "w": jax.device_put(
                jnp.arange(64.0).reshape(8, 8), NamedSharding(train, P("data", "model"))
            )
        }

    def serve_copy(self):
        with jax.set_mesh(self.meshes[Role.SERVE]):
            return transfer.gather_tree(self.params)

    def train_copy(self):
        with jax.set_mesh(self.meshes[Role.TRAIN]):
            return transfer.gather_tree(self.params)
