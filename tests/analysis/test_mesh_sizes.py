"""Where a mesh's sizes are written (jaxfix/analysis/ast_engine/mesh_sizes.py): what JAX002's
fix rewrites."""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.mesh_sizes import ConfigKey, EnvironmentVariable
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Unknown

HEADER = "import json, os\nfrom jax.sharding import AbstractMesh\n"


def _axes(code: str) -> list | Unknown:
    engine = Engine(jax_version=(0, 10, 2))
    module = engine.module(Path("example.py").absolute(), (HEADER + code).encode())
    assert isinstance(module, Module)
    last = module.tree.body[-1]
    assert isinstance(last, ast.Expr)
    found = Analysis(engine, module).mesh_sizes(last.value)
    return found if isinstance(found, Unknown) else [way.axes for way in found]


def test_factory_arguments_are_the_sizes_of_this_call() -> None:
    (way,) = _axes(
        "def make(data, model=4):\n    return AbstractMesh((data, model), ('d', 'm'))\nmake(model=2, data=16)\n"
    )
    assert [a.value for a in way] == [16, 2]


def test_factory_default_and_body_literal_are_not_this_calls() -> None:
    (way,) = _axes(
        "def make(data, model=4):\n    return AbstractMesh((data, model, 2), ('d', 'm', 'x'))\nmake(16)\n"
    )
    assert way[0].value == 16
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
