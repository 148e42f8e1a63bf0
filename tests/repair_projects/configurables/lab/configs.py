"""Configs that know the class they build: `cfg.build(**kwargs)` is `cfg.cls(cfg, **kwargs)`."""

import dataclasses
from typing import Any


@dataclasses.dataclass
class Config:
    cls: Any = None
    mesh_shape: tuple = ()
    mesh_axes: tuple = ("data", "model")

    def build(self, **kwargs):
        return self.cls(self, **kwargs)


class Buildable:
    @classmethod
    def config(cls, **fields):
        return Config(cls=cls, **fields)

    def __init__(self, cfg):
        self.cfg = cfg
