import dataclasses
from typing import Optional


@dataclasses.dataclass
class RunConfig:
    mesh_shape: tuple = (2, 4)
    eval_shape: Optional[tuple] = None
    decode_shape: Optional[tuple] = None


def small():
    return RunConfig(eval_shape=(4, 2), decode_shape=(2, 4))


def large():
    return RunConfig(eval_shape=(4, 4))


def serving():
    return RunConfig(decode_shape=(2, 2))


CONFIGS = {"small": small, "large": large, "serving": serving}
