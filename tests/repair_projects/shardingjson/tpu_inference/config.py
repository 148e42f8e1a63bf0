"""Engine configs (vLLM style): the sharding strategy rides in `additional_config`."""
import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class ParallelConfig:
    tensor_parallel_size: int = 4
    data_parallel_size: int = 2


@dataclass
class VllmConfig:
    parallel_config: ParallelConfig = field(default_factory=ParallelConfig)
    additional_config: dict = field(default_factory=dict)


def load_engine_config(path, tensor_parallel_size=4):
    with open(Path(__file__).parent.parent / "configs" / path) as f:
        additional = json.load(f)
    parallel = ParallelConfig(
        tensor_parallel_size=tensor_parallel_size,
        data_parallel_size=8 // tensor_parallel_size,
    )
    return VllmConfig(parallel_config=parallel, additional_config=additional)
