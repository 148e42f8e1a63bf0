"""Where a mesh's sizes are written (jaxfix/analysis/mesh_sizes.py): what JAX002's fix
rewrites. Still asked of the LibCST engine: the `ast` engine has no answer to this yet
(docs/design.md, STATUS item 2); these move with `mesh_sizes` when it does."""

from __future__ import annotations

import libcst as cst

from jaxfix.analysis.mesh_sizes import ConfigKey, EnvironmentVariable
from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.analysis.values import Unknown
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper

HEADER = "import json, os\nfrom jax.sharding import AbstractMesh\n"


def _axes(code: str) -> list | Unknown:
    module = cst.parse_module(HEADER + code)
    analysis = ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), (0, 10, 2)
    )
    last = module.body[-1].body[0]
    found = analysis.mesh_sizes(last.value)
    return found if isinstance(found, Unknown) else [way.axes for way in found]


def test_factory_arguments_are_the_sizes_of_this_call() -> None:
    (way,) = _axes(
        "def make(data, model=4):\n    return AbstractMesh((data, model), ('d', 'm'))\nmake(model=2, data=16)\n"
    )
    assert [a.value for a in way] == ["16", "2"]


def test_factory_default_and_body_literal_are_not_this_calls() -> None:
    (way,) = _axes(
        "def make(data, model=4):\n    return AbstractMesh((data, model, 2), ('d', 'm', 'x'))\nmake(16)\n"
    )
    assert way[0].value == "16"
    assert "takes its default" in way[1].why and "every call shares" in way[2].why


def test_environment_and_config_sources() -> None:
    (way,) = _axes(
        "CONFIG = json.load(open('stage.json'))\n"
        "AbstractMesh((int(os.environ['MESH_DATA']), os.getenv('MESH_MODEL'), CONFIG['eval'][0]), ('d', 'm', 'x'))\n"
    )
    assert way[0] == EnvironmentVariable("MESH_DATA") and way[1] == EnvironmentVariable(
        "MESH_MODEL"
    )
    assert isinstance(way[2], ConfigKey) and (way[2].keys, way[2].file) == (
        ("eval", 0),
        "stage.json",
    )
