"""Meshes written as {axis name: size} mappings, the fields' defaults."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class ParallelConfig:
    mesh: dict = dataclasses.field(default_factory=lambda: {"data": 2, "model": 4})
    expert_mesh: dict = dataclasses.field(
        default_factory=lambda: {"expert": 4, "model": 4}
    )
    draft_mesh: dict = dataclasses.field(
        default_factory=lambda: {"draft": 4, "model": 4}
    )
