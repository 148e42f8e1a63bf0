"""Ahead-of-time lowering for a serving topology, without its devices."""

import jax
from jax.sharding import AbstractMesh, AxisType

from minillm_jax import model


def serving_topology(x, y):
    return AbstractMesh((x, y), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)


def lower_forward(cfg, batch=8):
    """Lowers `forward` for `cfg.mesh`'s topology, for shape checks of the serving job."""
    x = jax.ShapeDtypeStruct(
        (batch, cfg.embed),
        jax.numpy.float32,
        sharding=model.logical_to_sharding(("batch", None), cfg.mesh, cfg.rules),
    )
    weights = {
        name: jax.ShapeDtypeStruct(shape, jax.numpy.float32, sharding=sharding)
        for (name, shape), sharding in zip(
            model.shapes(cfg).items(), model.shardings(cfg).values()
        )
    }
    traced = jax.jit(model.forward).trace(x, weights)
    return traced.lower()
