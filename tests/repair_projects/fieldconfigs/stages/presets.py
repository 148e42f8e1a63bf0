"""Presets as an enum whose property matches over its members, and a NamedTuple config."""
import enum
from typing import NamedTuple

import jax


@enum.unique
class Preset(enum.Enum):
    WIDE = enum.auto()
    NARROW = enum.auto()
    POD = enum.auto()

    @property
    def settings(self):
        match self:
            case Preset.WIDE:
                return dict(depth=2, probe_shape=(4, 2))
            case Preset.NARROW:
                return dict(depth=2, probe_shape=(2, 2))
            case Preset.POD:
                return dict(depth=2, probe_shape=(jax.local_device_count() // 4, 2))


class StageConfig(NamedTuple):
    depth: int
    probe_shape: tuple[int, int]

    @classmethod
    def of(cls, preset):
        return cls(**preset.settings)
