# code: JAX002
# static: unfixed (the inner mesh's sizes come from a config file)
# report: axis 'data' is read from inner_stages.json['eval']['data'] (read at line 11): set it to 8
import json
import pathlib

import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

with open(pathlib.Path(__file__).with_name("inner_stages.json")) as file:
    STAGES = json.load(file)

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((STAGES["eval"]["data"], STAGES["eval"]["model"]), ("data", "model"))):
        sizes = jax.sharding.get_abstract_mesh().axis_sizes
print("eval", sizes)
