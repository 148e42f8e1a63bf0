# code: JAX002
# static: fixed
# result: stage (2, 4)
import jax
from jax.sharding import AbstractMesh, use_abstract_mesh


def stage_sizes():
    with use_abstract_mesh(AbstractMesh((2, 4), ("x", "y"))):
        with use_abstract_mesh(AbstractMesh((2, 4), ("x", "y"))):
            return jax.sharding.get_abstract_mesh().axis_sizes


try:
    sizes = stage_sizes()
except ValueError as error:  # a chained traceback: the JAX error, then this one
    raise RuntimeError("could not set up the stage") from error
print("stage", sizes)
