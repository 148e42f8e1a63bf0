# code: JAX002
# static: unfixed (the inner mesh's data size comes from an environment variable)
# report: axis 'data' is read from the environment variable JAXFIX_EXAMPLE_INNER_DATA: set it to 8
import os

import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

EVAL_DATA = int(os.environ.get("JAXFIX_EXAMPLE_INNER_DATA", "16"))

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((EVAL_DATA, 4), ("data", "model"))):
        sizes = jax.sharding.get_abstract_mesh().axis_sizes
print("eval", sizes)
