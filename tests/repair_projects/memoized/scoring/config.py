import dataclasses


@dataclasses.dataclass(frozen=True)
class ScoringConfig:
    batch_size: int = 4
    model_size: int = 1
    name: str = "score"
