"""Serving settings: a base config, and copies of configs with some fields replaced."""

import dataclasses
from typing import NamedTuple


@dataclasses.dataclass(frozen=True)
class MeshConfig:
    outer: tuple = (2, 4)
    inner: tuple = (8, 1)
    batch: int = 8


class Layout(NamedTuple):
    outer: tuple
    inner: tuple


BASE = MeshConfig()
EVAL = dataclasses.replace(BASE, inner=(4, 4), batch=4)

SKINNY = MeshConfig(outer=(2, 2), inner=(2, 2))
PROBE = dataclasses.replace(SKINNY, outer=(2, 4))

LAYOUT = Layout(outer=(2, 4), inner=(8, 1))
SERVE = LAYOUT._replace(inner=(2, 2))
