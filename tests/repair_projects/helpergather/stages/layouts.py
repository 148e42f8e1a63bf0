"""Where each stage's gathered copy is laid out: (mesh shape, axis names) by stage."""

import jax
from jax.sharding import AxisType

LAYOUTS = {
    "conditions": ((2, 4), ("data", "model")),
    "eval": ((4, 2), ("data", "model")),
}


def layout_mesh(name):
    shape, names = LAYOUTS[name]
    return jax.make_mesh(shape, names, axis_types=(AxisType.Explicit,) * len(names))
