import jax
import numpy as np

from lab.configs import Buildable
from lab.meshing import current_mesh, resolve_shape
from lab.scorer import Scorer


class Fitter(Buildable):
    def __init__(self, cfg):
        super().__init__(cfg)
        shape = resolve_shape(cfg.mesh_shape, device_count=len(jax.devices()))
        devices = np.asarray(jax.devices()[: int(np.prod(shape))]).reshape(shape)
        self.device_mesh = jax.sharding.Mesh(devices, cfg.mesh_axes)

    def fit_and_score(self):
        with jax.set_mesh(self.device_mesh):
            w = jax.numpy.ones((4, 4)) / 4
            scorer = Scorer.config().build(mesh=current_mesh())
        return scorer.score(w)

    def fit_and_score_on_device_mesh(self):
        with jax.set_mesh(self.device_mesh):
            w = jax.numpy.ones((4, 4)) / 4
            scorer = Scorer.config().build(mesh=self.device_mesh)
        return scorer.score(w)
