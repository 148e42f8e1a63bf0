"""Serving settings: axes as (name, size) pairs, a `-1` size filled from the devices."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Settings:
    axes: tuple = (("batch", -1), ("model", 2))
    hidden: int = 8
    classes: int = 4
    batch: int = 16
