import math

import jax
import numpy as np
from jax.experimental import mesh_utils
from jax.sharding import AbstractMesh, AxisType, Mesh

NAMES = ("data", "model")
EXPLICIT = (AxisType.Explicit, AxisType.Explicit)
HOST_SHAPE = (2, 2)


def device_mesh(shape):
    devices = mesh_utils.create_device_mesh(shape, devices=jax.devices()[: math.prod(shape)])
    return Mesh(devices, NAMES, axis_types=EXPLICIT)


def host_mesh(shape):
    devices = np.asarray(jax.devices()[: math.prod(shape)]).reshape(shape)
    return Mesh(devices, NAMES, axis_types=EXPLICIT)


class Layout:
    def __init__(self, shape, names=NAMES):
        self._shape = tuple(shape)
        self._names = names

    @property
    def shape(self):
        return self._shape

    def abstract(self):
        return AbstractMesh(self.shape, self._names, axis_types=EXPLICIT)


LAYOUTS = {"wide": Layout(shape=(4, 4)), "narrow": Layout(shape=(2, 4))}
