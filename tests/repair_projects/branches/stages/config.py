"""Stage settings read from stages.yaml into attribute configs."""
import dataclasses
from pathlib import Path

import yaml

RAW = yaml.safe_load((Path(__file__).parent.parent / "stages.yaml").read_text())


@dataclasses.dataclass
class StageConfig:
    expert_parallelism: int


def load(name):
    return StageConfig(**RAW[name])
