"""The sampler's view of the serving mesh."""

import jax
from jax.sharding import AbstractMesh, AxisType

from minillm_jax.model import BATCH_AXIS_NAME, TENSOR_AXIS_NAME


def decode_mesh(cfg):
    return AbstractMesh(
        cfg.decode_axes,
        (BATCH_AXIS_NAME, TENSOR_AXIS_NAME),
        axis_types=(AxisType.Explicit,) * 2,
    )


def last_position(tokens, cfg):
    """The shape of the last position, traced on the decode sub-mesh."""
    with jax.sharding.use_abstract_mesh(decode_mesh(cfg)):
        return jax.eval_shape(lambda t: t[:, -1:], tokens).shape
