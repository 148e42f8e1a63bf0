"""Stage settings as a frozen dataclass; the serving stage's instance is built in serving.py."""
from dataclasses import dataclass


@dataclass(frozen=True)
class StageConfig:
    shape: tuple = (4, 4)
    names: tuple = ("data", "model")
