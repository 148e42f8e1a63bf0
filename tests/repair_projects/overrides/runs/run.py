import jax
from jax.sharding import AbstractMesh, AxisType

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit, AxisType.Explicit)


def _abstract(shape):
    return AbstractMesh(tuple(shape), AXES, axis_types=EXPLICIT)


class Runner:
    def __init__(self, config):
        self.config = config

    def probe_sizes(self):
        inner = _abstract(self.config.probe_shape)
        with jax.set_mesh(jax.make_mesh(self.config.train_shape, AXES, axis_types=EXPLICIT)):
            with jax.sharding.use_abstract_mesh(inner):
                return dict(jax.sharding.get_abstract_mesh().shape)
