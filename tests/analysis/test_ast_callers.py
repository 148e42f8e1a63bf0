"""Each way the project calls a function, asked one by one (callers.py), and the values a call
of each of several registered functions gives (`Alternatives`), on small programs: one fact
each, no JAX imported (fast)."""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.callers import caller_ways
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Alternatives, Instance, Unknown

REGISTRY = (
    "import dataclasses, os\n"
    "_CONFIGS = {}\n"
    "def register(fn):\n"
    "    _CONFIGS[fn.__name__] = fn\n"
    "    return fn\n"
    "@dataclasses.dataclass(frozen=True)\n"
    "class Config:\n"
    "    shape: tuple = (8,)\n"
    "@register\n"
    "def base():\n"
    "    return Config()\n"
    "@register\n"
    "def small():\n"
    "    return dataclasses.replace(base(), shape=(4,))\n"
)


def _engine(tmp_path: Path, source: str) -> tuple[Engine, Module]:
    main = tmp_path / "main.py"
    main.write_text(source)
    engine = Engine(roots=(tmp_path,), files=(main,), jax_version=(0, 10, 2))
    module = engine.module(main)
    assert isinstance(module, Module)
    return engine, module


def _function(module: Module, name: str) -> ast.FunctionDef:
    (found,) = [
        node
        for node in ast.walk(module.tree)
        if isinstance(node, ast.FunctionDef) and node.name == name
    ]
    return found


def _shapes(engine: Engine, module: Module, name: str) -> list[object]:
    """`shape`'s value on each way `name` is called."""
    return [
        way.frame.arg("shape")
        for way in caller_ways(engine.evaluator, module, _function(module, name))
    ]


def test_each_caller_binds_its_own_arguments(tmp_path: Path):
    engine, module = _engine(
        tmp_path, "def stage(shape):\n    return shape\nstage((8,))\nstage((2, 2))\n"
    )
    assert _shapes(engine, module, "stage") == [(8,), (2, 2)]


def test_a_caller_whose_argument_is_its_own_parameter_is_followed_up(tmp_path: Path):
    engine, module = _engine(
        tmp_path,
        "def stage(shape):\n    return shape\n"
        "def run(shape):\n    return stage(shape)\n"
        "run((8,))\nrun((4,))\n",
    )
    ways = caller_ways(engine.evaluator, module, _function(module, "stage"))
    assert [way.frame.arg("shape") for way in ways] == [(8,), (4,)]
    assert all(len(way.calls) == 2 for way in ways)


def test_more_callers_than_asked_one_by_one_give_no_way(tmp_path: Path):
    calls = "".join(f"stage(({n},))\n" for n in range(1, 7))
    engine, module = _engine(tmp_path, "def stage(shape):\n    return shape\n" + calls)
    assert _shapes(engine, module, "stage") == []


def test_a_function_passed_on_gives_no_way(tmp_path: Path):
    engine, module = _engine(
        tmp_path, "def stage(shape):\n    return shape\nstage((8,))\nSTAGES = [stage]\n"
    )
    assert _shapes(engine, module, "stage") == []


def test_a_registered_config_picked_by_an_unknown_name_is_one_of_its_values(
    tmp_path: Path,
):
    engine, module = _engine(
        tmp_path, REGISTRY + "c = _CONFIGS[os.environ['NAME']]()\n"
    )
    last = module.tree.body[-1]
    assert isinstance(last, ast.Assign)
    found = engine.value_of(module, last.value)
    assert isinstance(found, Alternatives) and isinstance(found, Unknown)
    shapes = {
        v.init and dict(v.init)["shape"]
        for v in found.values
        if isinstance(v, Instance)
    }
    assert shapes == {(8,), (4,)}


def test_each_registered_config_is_a_way_of_its_callers(tmp_path: Path):
    engine, module = _engine(
        tmp_path,
        REGISTRY
        + "def stage(config):\n    return config.shape\n"
        + "stage(_CONFIGS[os.environ['NAME']]())\n",
    )
    ways = caller_ways(engine.evaluator, module, _function(module, "stage"))
    configs = [way.frame.arg("config") for way in ways]
    assert len(configs) == 2
    assert {
        dict(c.init or ())["shape"] for c in configs if isinstance(c, Instance)
    } == {(8,), (4,)}


def test_a_decorator_returning_what_it_decorates_keeps_the_function(tmp_path: Path):
    engine, module = _engine(tmp_path, REGISTRY + "c = small()\n")
    last = module.tree.body[-1]
    assert isinstance(last, ast.Assign)
    found = engine.value_of(module, last.value)
    assert isinstance(found, Instance) and dict(found.init or ())["shape"] == (4,)


def test_a_memoized_function_gives_what_its_body_returns(tmp_path: Path):
    """`@functools.lru_cache(maxsize=None)` and `@functools.cache` return the body's value
    for the arguments given."""
    source = (
        "import functools\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def sizes(n):\n"
        "    return (n, 2)\n"
        "@functools.cache\n"
        "def names():\n"
        "    return ('data', 'model')\n"
        "a = sizes(4)\n"
        "b = names()\n"
    )
    engine, module = _engine(tmp_path, source)
    a, b = (s.value for s in module.tree.body[-2:] if isinstance(s, ast.Assign))
    assert engine.value_of(module, a) == (4, 2)
    assert engine.value_of(module, b) == ("data", "model")
