import math
from dataclasses import asdict, dataclass


@dataclass
class ShardingStrategy:
    tensor_parallelism: int = 1
    expert_parallelism: int = 1
    data_parallelism: int = 1


class ShardingConfigManager:
    def __init__(self, sharding_strategy: ShardingStrategy):
        self.sharding_strategy = sharding_strategy
        self._total_devices = int(math.prod(asdict(sharding_strategy).values()))

    @classmethod
    def from_vllm_config(cls, vllm_config):
        sharding_strategy = vllm_config.additional_config.get("sharding", {}).get(
            "sharding_strategy", {}
        )
        parallel_config = vllm_config.parallel_config
        expert_parallelism = sharding_strategy.get("expert_parallelism", 1)
        strategy = ShardingStrategy(
            tensor_parallelism=parallel_config.tensor_parallel_size,
            expert_parallelism=expert_parallelism,
            data_parallelism=parallel_config.data_parallel_size,
        )
        return cls(strategy)

    @property
    def tp_size(self) -> int:
        return self.sharding_strategy.tensor_parallelism

    @property
    def expert_size(self) -> int:
        return self.sharding_strategy.expert_parallelism

    @property
    def dp_size(self) -> int:
        return self.sharding_strategy.data_parallelism
