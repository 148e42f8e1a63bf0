import jax
import numpy as np

default_mesh_axes = ["data", "tensor"]


def create_device_mesh(ici_parallelism, devices=None, mesh_axes=default_mesh_axes):
    if devices is None:
        devices = jax.devices()
    devices_array = np.asarray(devices).reshape(ici_parallelism)
    axis_types = (jax.sharding.AxisType.Explicit,) * len(mesh_axes)
    return jax.sharding.Mesh(devices_array, tuple(mesh_axes), axis_types=axis_types)
