import functools
import json
from pathlib import Path

from edl.mesh import create_abstract_mesh, create_mesh

CONFIGS = Path(__file__).parents[1] / "configs"


class ModelConfig:
    def __init__(self, hidden_size, sharding_axis_dims, eval_axis_dims):
        self.hidden_size = hidden_size
        self.sharding_axis_dims = sharding_axis_dims
        self.eval_axis_dims = eval_axis_dims

    @classmethod
    def from_pretrained(cls, name):
        return cls(**json.loads((CONFIGS / f"{name}.json").read_text()))

    @functools.cached_property
    def mesh(self):
        return create_mesh(self.sharding_axis_dims)

    def get_mesh(self):
        return self.mesh

    def get_eval_mesh(self):
        return create_abstract_mesh(self.eval_axis_dims)
