"""Each way the project calls a function, asked one by one (callers.py), and the values a call
of each of several registered functions gives (`Alternatives`), on small programs: one fact
each, no JAX imported (fast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


# A variable named as a method (`draft = worker.draft(ids)`) holding what jaxfix does not know
# (`jnp.stack(..., axis=-1)` of a loop's own previous result)
WORKER = (
    "import jax.numpy as jnp\n"
    "class Worker:\n"
    "    def draft(self, ids):\n"
    "        return jnp.stack([ids], axis=-1)\n"
    "def main(worker, ids):\n"
    "    for _ in range(2):\n"
    "        draft = worker.draft(ids)\n"
    "        ids = draft[:, 0]\n"
    "    return draft\n"
    "main(Worker(), jnp.zeros(2))\n"
)


def _calls_of_draft(engine: Engine, module: Module) -> object:
    return engine.evaluator.calls_of(
        module, _function(module, "draft"), on_objects=True
    )


def test_a_variable_named_as_a_method_only_called_is_not_it(tmp_path: Path):
    engine, module = _engine(tmp_path, WORKER)
    found = _calls_of_draft(engine, module)
    assert isinstance(found, list) and len(found) == 1


def test_a_method_read_uncalled_may_be_a_variable_of_its_name(tmp_path: Path):
    engine, module = _engine(tmp_path, WORKER + "STEP = Worker().draft\n")
    assert isinstance(_calls_of_draft(engine, module), Unknown)


def test_a_method_named_by_a_string_may_be_a_variable_of_its_name(tmp_path: Path):
    for lookup in (
        "getattr(Worker(), 'draft')",
        "getattr(Worker(), NAME)",
        "vars(Worker())['draft']",
        "[getattr(Worker(), n) for n in ('draft',)]",
    ):
        engine, module = _engine(tmp_path, WORKER + f"STEP = {lookup}\n")
        assert isinstance(_calls_of_draft(engine, module), Unknown), lookup


def test_a_copy_of_an_object_of_the_tree_is_an_object_of_its_class(tmp_path: Path):
    engine, module = _engine(
        tmp_path,
        "import copy\nclass Config:\n    pass\nc = copy.deepcopy(Config())\n",
    )
    last = module.tree.body[-1]
    assert isinstance(last, ast.Assign)
    found = engine.value_of(module, last.value)
    assert isinstance(found, Instance) and found.cls.node.name == "Config"


CONFIG_CLASS = (
    "import dataclasses\n"
    "def config_class(cls):\n"
    "    return dataclasses.dataclass(frozen=True)(cls)\n"
    "@config_class\n"
    "class Config:\n"
    "    shape: tuple = (2, 2)\n"
    "c = Config().shape\n"
)


def _last_value(tmp_path: Path, source: str) -> object:
    engine, module = _engine(tmp_path, source)
    last = module.tree.body[-1]
    assert isinstance(last, ast.Assign)
    return engine.value_of(module, last.value)


@pytest.mark.parametrize(
    "made", ["dataclasses.dataclass(frozen=True)(cls)", "dataclasses.dataclass(cls)"]
)
def test_a_dataclass_declared_through_a_helper_decorator_has_its_defaults(
    tmp_path: Path, made: str
):
    source = CONFIG_CLASS.replace("dataclasses.dataclass(frozen=True)(cls)", made)
    assert _last_value(tmp_path, source) == (2, 2)


def test_a_helper_decorator_doing_more_is_not_a_dataclass_one(tmp_path: Path):
    source = CONFIG_CLASS.replace("    return", "    cls.shape = (4, 2)\n    return")
    assert isinstance(_last_value(tmp_path, source), Unknown)


def _parameter(tmp_path: Path, source: str, function: str, name: str) -> object:
    """The value of the first read of `name` in `function`, from its callers."""
    engine, module = _engine(tmp_path, source)
    (read,) = [
        node
        for node in ast.walk(_function(module, function))
        if isinstance(node, ast.Name) and node.id == name
    ][:1]
    return engine.value_of(module, read)


def test_a_parameter_first_passed_unknown_is_that_unknown_whatever_later_calls_pass(
    tmp_path: Path,
) -> None:
    value = _parameter(
        tmp_path,
        "import os\ndef f(x):\n    return x\nf(os.environ['A'])\nf(2)\nf(3)\n",
        "f",
        "x",
    )
    assert isinstance(value, Unknown)
    assert (
        value.why == "an item jaxfix cannot pick"
    )  # `os.environ[...]`, the first call's


def test_a_later_call_that_cannot_be_bound_decides_after_an_unknown_caller(
    tmp_path: Path,
) -> None:
    # the first caller settles `x` as an Unknown, but the third call passes an argument `f`
    # has no parameter for: the answer is that call's, as when every caller is asked
    value = _parameter(
        tmp_path,
        "import os\ndef f(x):\n    return x\nf(os.environ['A'])\nf(2)\nf(3, 4)\n",
        "f",
        "x",
    )
    assert isinstance(value, Unknown)
    assert value.why == "a call with more arguments than parameters"
    unknown_keyword = _parameter(
        tmp_path,
        "import os\ndef f(x):\n    return x\nf(os.environ['A'])\nf(x=2, y=3)\n",
        "f",
        "x",
    )
    assert isinstance(unknown_keyword, Unknown)
    assert unknown_keyword.why == "a call with an unknown keyword `y`"
