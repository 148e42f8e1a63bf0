import jax
import numpy as np


def resolve_shape(shape, *, device_count):
    """`shape` with its one `-1` (if any) given the devices left over."""
    if -1 not in shape:
        return tuple(shape)
    rest = int(np.prod([d for d in shape if d != -1]))
    return tuple(device_count // rest if d == -1 else d for d in shape)


def current_mesh():
    """The abstract mesh in force, else the concrete one."""
    mesh = jax.sharding.get_abstract_mesh()
    if mesh.empty:
        return jax.sharding.get_mesh()
    return mesh
