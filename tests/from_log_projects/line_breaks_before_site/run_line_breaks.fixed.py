# code: JAX002
# static: unfixed (the enclosing mesh's sizes come from a config file; before the raising line, characters str.splitlines() breaks at and Python does not)
# result: stage (8, 4)
import json
import pathlib

import jax
from jax.sharding import AbstractMesh, use_abstract_mesh


NOTE = "form feed , line separator  , file separator , next line , vertical tab "
CONFIG = json.loads((pathlib.Path(__file__).parent / "breaks_config.json").read_text())
OUTER = AbstractMesh((CONFIG["data"], CONFIG["model"]), ("data", "model"))  #    

with use_abstract_mesh(OUTER):
    with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
        sizes = jax.sharding.get_abstract_mesh().axis_sizes
print("stage", sizes)
