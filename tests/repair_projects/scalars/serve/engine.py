"""The engine's sharding, a dataclass filled from configs/engine.yml (tpu-inference style)."""
import dataclasses
import pathlib

import yaml

CONFIG = pathlib.Path(__file__).parent.parent / "configs" / "engine.yml"


@dataclasses.dataclass(frozen=True)
class Sharding:
    dp: int = 1
    tp: int = 1


@dataclasses.dataclass(frozen=True)
class EngineConfig:
    sharding: Sharding
    speculative: Sharding


def load(path=CONFIG):
    with open(path) as f:
        raw = yaml.safe_load(f)
    spec = raw["speculative"]
    return EngineConfig(
        sharding=Sharding(dp=raw["sharding"]["data"], tp=raw["sharding"]["model"]),
        speculative=Sharding(dp=spec["data"], tp=spec["model"]),
    )
