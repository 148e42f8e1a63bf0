"""Frozen dataclass configs whose fields are configs (levanter style)."""
import dataclasses
import os


@dataclasses.dataclass(frozen=True)
class MeshConfig:
    shape: tuple = (2, 4)
    axes: tuple = ("data", "model")


@dataclasses.dataclass(frozen=True)
class TrainerConfig:
    mesh: MeshConfig = MeshConfig()
    eval_mesh: MeshConfig = MeshConfig(shape=(4, 4))
    serve_mesh: MeshConfig = MeshConfig(shape=(4, 4))


def probe_mesh():
    """Sizes the launcher chooses at run time: nothing a tool should rewrite."""
    return MeshConfig(shape=(int(os.environ.get("PROBE_DATA", "4")), 4))
