"""The server's meshes, sized from the launcher's settings."""

import jax
from jax.sharding import AbstractMesh, AxisType

from serving import launch

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit,) * len(AXES)


def device_mesh():
    return jax.make_mesh((4, 2), AXES, axis_types=EXPLICIT)


def replica_mesh():
    num_devices = launch.NUM_DEVICES
    num_partitions = launch.num_partitions()
    replicas = num_devices // num_partitions
    return AbstractMesh((replicas, launch.MODEL_PARALLEL), AXES, axis_types=EXPLICIT)


def batch_mesh():
    return AbstractMesh(
        (launch.NUM_DEVICES // launch.MODEL_PARALLEL, launch.MODEL_PARALLEL),
        AXES,
        axis_types=EXPLICIT,
    )
