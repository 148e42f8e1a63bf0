"""A trainer whose stages gather their inputs through a shared helper."""

import jax
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from stages import layouts, ops


def make_mesh(shape):
    return jax.make_mesh(shape, ("data", "model"), axis_types=(AxisType.Explicit,) * 2)


class Trainer:
    def __init__(self):
        self.mesh = make_mesh((4, 2))

    def _placed(self, x):
        return jax.device_put(np.asarray(x), NamedSharding(self.mesh, P("data")))

    def gather_conditions(self, cond):
        cond = self._placed(cond)
        layout = NamedSharding(
            layouts.layout_mesh("conditions"), P(None, reduced={"data"})
        )
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda c: ops.gather_reduced(c, layout))(cond)

    def gather_eval(self, cond):
        cond = self._placed(cond)
        layout = NamedSharding(layouts.layout_mesh("eval"), P(None, reduced={"data"}))
        with jax.set_mesh(self.mesh):
            return jax.jit(lambda c: ops.gather_reduced(c, layout))(cond)

    def gather_on_fresh_mesh(self, cond):
        cond = jax.device_put(
            np.asarray(cond), NamedSharding(make_mesh((2, 4)), P("data"))
        )
        layout = NamedSharding(
            layouts.layout_mesh("conditions"), P(None, reduced={"data"})
        )
        with jax.set_mesh(make_mesh((4, 2))):
            return jax.jit(lambda c: ops.gather_reduced(c, layout))(cond)
