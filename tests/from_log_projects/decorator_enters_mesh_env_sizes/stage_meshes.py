import functools
import os

from jax.sharding import AbstractMesh, use_abstract_mesh

DATA = int(os.environ.get("JAXFIX_EXAMPLE_DATA", "8"))


def in_stage_mesh(fn):
    """Runs `fn` under the training stage's mesh, sized by the environment."""

    @functools.wraps(fn)
    def wrapper(*args):
        with use_abstract_mesh(AbstractMesh((DATA, 4), ("data", "model"))):
            return fn(*args)

    return wrapper
