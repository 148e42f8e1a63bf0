"""The project's meshes, built in one place."""
import json
import pathlib

import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P

CONFIG = pathlib.Path(__file__).resolve().parent.parent / "configs" / "stage.json"


def stage_mesh():
    """The training stage's mesh: its sizes live in configs/stage.json."""
    sizes = json.loads(CONFIG.read_text())
    return AbstractMesh((sizes["data"], sizes["model"]), ("data", "model"))


def serving_mesh():
    return AbstractMesh((2, 4), ("x", "y"))


def loader_mesh():
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def batch():
    return jax.device_put(jnp.arange(8), NamedSharding(loader_mesh(), P("x")))
