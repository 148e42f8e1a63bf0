import math

from jax.sharding import AbstractMesh


def resolve(axes, num_devices):
    known = math.prod(size for _, size in axes if size != -1)
    sizes = tuple(num_devices // known if size == -1 else size for _, size in axes)
    return sizes, tuple(name for name, _ in axes)


def abstract_mesh(axes, num_devices):
    sizes, names = resolve(axes, num_devices)
    return AbstractMesh(sizes, names)
