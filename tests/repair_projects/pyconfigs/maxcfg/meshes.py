"""Meshes from the config's `*_parallelism` entries, a `-1` filled from the devices."""

import math

import jax
from jax.sharding import AbstractMesh, AxisType


def _fill(shape, num_devices):
    shape = list(shape)
    if -1 in shape:
        shape[shape.index(-1)] = num_devices // -math.prod(shape)
    return tuple(shape)


def device_mesh(config):
    shape = _fill([config.ici_fsdp_parallelism, config.ici_tensor_parallelism], jax.device_count())
    return jax.make_mesh(shape, tuple(config.mesh_axes), axis_types=(AxisType.Explicit,) * len(shape))


def prefill_mesh(config):
    shape = _fill([config.prefill_ici_fsdp_parallelism, config.prefill_ici_tensor_parallelism], jax.device_count())
    return AbstractMesh(shape, tuple(config.mesh_axes), axis_types=(AxisType.Explicit,) * len(shape))


def decode_mesh(config):
    shape = _fill([config.decode_ici_fsdp_parallelism, config.decode_ici_tensor_parallelism], jax.device_count())
    return AbstractMesh(shape, tuple(config.mesh_axes), axis_types=(AxisType.Explicit,) * len(shape))
