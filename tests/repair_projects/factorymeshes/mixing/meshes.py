"""Mesh factories shared by the mixers."""

import jax


def create_mesh(dims, names=("data", "model")):
    return jax.make_mesh(tuple(dims), tuple(names))


def stage_mesh(stages):
    return jax.make_mesh((stages, jax.device_count() // stages), ("stage", "data"))


def served_mesh(dims, names=("data", "model")):
    return jax.make_mesh(
        tuple(dims), tuple(names), axis_types=(jax.sharding.AxisType.Auto,) * len(names)
    )
