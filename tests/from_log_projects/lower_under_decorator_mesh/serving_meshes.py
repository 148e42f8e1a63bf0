import functools
import os

from jax.sharding import AbstractMesh, AxisType, use_abstract_mesh

SHAPE = tuple(int(n) for n in os.environ.get("JAXFIX_EXAMPLE_SHAPE", "2,4").split(","))


def under_serving_mesh(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        mesh = AbstractMesh(SHAPE, ("x", "y"), axis_types=(AxisType.Explicit,) * len(SHAPE))
        with use_abstract_mesh(mesh):
            return fn(*args)

    return wrapper
