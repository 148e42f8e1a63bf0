# -*- coding: latin-1 -*-
# code: JAX002
# static: unfixed (the enclosing mesh's sizes come from a config file; the file is latin-1, as its cookie says, and its raising line holds a non-ASCII name)
# result: étape (8, 4)
import json
import pathlib

import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

CONFIG = json.loads((pathlib.Path(__file__).parent / "latin1_config.json").read_text())

with use_abstract_mesh(AbstractMesh((CONFIG["data"], CONFIG["model"]), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))) as étape:
        sizes = jax.sharding.get_abstract_mesh().axis_sizes
print("étape", sizes)
