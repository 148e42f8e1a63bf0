import dataclasses


@dataclasses.dataclass(kw_only=True, frozen=True)
class ClusterConfig:
    actor_mesh: object
    sampler_shape: tuple = (2, 2)
    reference_shape: tuple = (4, 2)


@dataclasses.dataclass(kw_only=True, frozen=True)
class RolloutConfig:
    actor_mesh: object
    plan_shape: tuple = (2, 2)
