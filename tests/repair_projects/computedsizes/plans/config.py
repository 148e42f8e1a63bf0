"""Parallelism of each plan, by axis name."""

import dataclasses

AXES = ("data", "model")


@dataclasses.dataclass(frozen=True)
class PlanConfig:
    sizes: dict = dataclasses.field(default_factory=dict)


TRAIN = PlanConfig(sizes={"data": 2, "model": 4})
EVAL = PlanConfig(sizes={"data": 2, "model": 2})
SCORE_SHAPE = (2, 2)
PROBE_PARALLELISM = {"data": 2, "model": 1}
# the serving plan splits the devices it is given over its model axis
SERVE_DEVICES = 4
SERVE_MODEL = 2
