import jax
import jax.numpy as jnp


class Trainer:
    def __init__(self, mesh, eval_mesh):
        self.mesh = mesh
        self.eval_mesh = eval_mesh

    def evaluate(self, batch):
        with jax.set_mesh(self.mesh):
            with jax.sharding.use_abstract_mesh(self.eval_mesh.abstract_mesh):
                return jax.eval_shape(lambda: jnp.zeros((batch, 4))).shape
