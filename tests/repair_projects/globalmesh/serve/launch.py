"""A launcher that sets the mesh at import, for what follows."""

import jax

from serve.server import serving_mesh

SERVING = serving_mesh().abstract_mesh
jax.set_mesh(SERVING)
