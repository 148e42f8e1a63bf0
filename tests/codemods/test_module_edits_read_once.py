"""`read_once` (jaxfix/codemods/module_edits.py): a mesh built through a construction on a line
of several calls goes one way when the object goes on through methods returning it to a name
read once, and through a property read of an object read there alone; `every_caller_seen`
follows a lambda a tree map runs at once to the function calling the map."""

from __future__ import annotations

import ast

import pytest

from ast_programs import parsed
from jaxfix.analysis.ast_engine.values import Mesh
from jaxfix.codemods.module_edits import every_caller_seen, read_once

PROGRAM = """\
import jax


class Model:
    def __init__(self, shape):
        self.mesh = jax.make_mesh(shape, ("a", "b"))

    def placed(self):
        return self

    def copied(self):
        return Model((4, 2))


def use(mesh):
    return mesh


def main():
    model = Model(tuple([2, 4])).{method}()
    {reads}
"""


@pytest.mark.parametrize(
    "method, reads, once",
    [
        ("placed", "use(model.mesh)", True),
        ("placed", "use(model.mesh)\n    print(model)", False),
        ("copied", "use(model.mesh)", False),
    ],
)
def test_an_object_passed_on_by_a_method_returning_it_goes_one_way(
    method: str, reads: str, once: bool
) -> None:
    engine, module = parsed(PROGRAM.format(method=method, reads=reads))
    read = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Attribute) and n.attr == "mesh" and n.lineno > 20
    )
    mesh = engine.value_of(module, read)
    assert isinstance(mesh, Mesh)
    assert read_once(engine.evaluator, mesh.built_at) is once


CONFIG = """\
import functools

import jax
from jax.sharding import NamedSharding, PartitionSpec as P


class Config:
    def __init__(self, shape):
        self.shape = shape

    @functools.cached_property
    def mesh(self):
        return jax.make_mesh(self.shape, ("a", "b"))


def main(x):
    config = Config((2, 4))
    placed = jax.device_put(x, NamedSharding(config.mesh, P("a")))
    {more}
"""


@pytest.mark.parametrize(
    "more, once",
    [
        ("return placed", True),
        ("return placed, config", False),
    ],
)
def test_a_property_read_of_an_object_read_there_alone_goes_one_way(
    more: str, once: bool
) -> None:
    engine, module = parsed(CONFIG.format(more=more))
    read = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Attribute) and n.attr == "mesh"
    )
    mesh = engine.value_of(module, read)
    assert isinstance(mesh, Mesh)
    assert read_once(engine.evaluator, mesh.built_at) is once


MAPPED = """\
import jax


def gather(params):
    {body}


def main(params):
    return gather(params)
"""


@pytest.mark.parametrize(
    "body, seen",
    [
        ("return jax.tree.map(lambda p: target(p), params)", True),
        ("keep = lambda p: target(p)\n    return keep", False),
    ],
)
def test_a_lambda_a_tree_map_runs_at_once_is_called_where_the_map_is(
    body: str, seen: bool
) -> None:
    engine, module = parsed(MAPPED.format(body=body))
    node = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "target"
    )
    assert every_caller_seen(engine.evaluator, module, node) is seen
