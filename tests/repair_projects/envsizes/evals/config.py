"""Evaluation settings; the slice's size and the seed come from the launcher's environment."""

import dataclasses
import os


@dataclasses.dataclass(frozen=True)
class EvalConfig:
    name: str
    model_axis_size: int = 2
    slice_devices: int = 8
    seed: int = 0

    @staticmethod
    def from_env(name):
        slice_devices = int(os.environ.get("EVAL_SLICE_DEVICES", "8"))
        seed = int(os.environ.get("EVAL_SEED", "0"))
        return EvalConfig(name=name, slice_devices=slice_devices, seed=seed)
