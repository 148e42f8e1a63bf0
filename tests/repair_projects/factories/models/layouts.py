"""Named (dp, tp) layouts, chosen by the --eval-layout flag."""

import jax

LAYOUTS = {
    "dp": (8, 1),
    "dp_tp": (4, 2),
    "dp_tpsp": (2, 2),
}


def get_layout(name):
    if name not in LAYOUTS:
        raise ValueError(f"no layout {name}")
    return LAYOUTS[name]


def create_abstract_mesh(dp, tp):
    explicit = (jax.sharding.AxisType.Explicit,) * 2
    return jax.sharding.AbstractMesh((dp, tp), ("data", "model"), axis_types=explicit)
