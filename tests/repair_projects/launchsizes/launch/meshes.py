"""Meshes the launcher's environment sizes."""

import jax
from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P

from launch import hosts

AXES = ("data", "model")
EXPLICIT = (AxisType.Explicit,) * 2
AUTO = (AxisType.Auto,)


def device_mesh():
    return jax.make_mesh((2, 4), AXES, axis_types=EXPLICIT)


def host_mesh():
    return AbstractMesh((hosts.chips_per_host(),), ("x",))


def slice_mesh():
    return AbstractMesh((hosts.chips_per_slice(),), ("x",))


def launched_mesh():
    return jax.make_mesh(hosts.mesh_shape(), AXES, axis_types=EXPLICIT)


def serving_mesh():
    return jax.make_mesh(hosts.serving_shape(), AXES, axis_types=EXPLICIT)


def target_sharding():
    return NamedSharding(AbstractMesh((hosts.target_devices(),), ("x",), axis_types=AUTO), P("x"))


def pod_sharding():
    return NamedSharding(AbstractMesh((hosts.pod_devices(),), ("x",), axis_types=AUTO), P("x"))
