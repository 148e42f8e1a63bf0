# code: JAX002
# static: unfixed (the enclosing mesh's sizes come from a config file; the inner mesh from a factory of another module, called with keywords)
# result: moe (2, 2, 2)
import json
import pathlib

import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from moe_meshes import make_abstract_moe_mesh

CONFIG = json.loads((pathlib.Path(__file__).parent / "moe_config.json").read_text())

with use_abstract_mesh(AbstractMesh(tuple(CONFIG["train"]), ("data", "expert", "model"))):
    with use_abstract_mesh(make_abstract_moe_mesh(data=2, expert=2, model=2)):
        sizes = jax.sharding.get_abstract_mesh().axis_sizes
print("moe", sizes)
