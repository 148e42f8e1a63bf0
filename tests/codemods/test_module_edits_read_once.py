"""`read_once` (jaxfix/codemods/module_edits.py): a mesh built through a construction on a line
of several calls goes one way when the object goes on through methods returning it to a name
read once, and through a property read of an object read there alone; an object that keeps the
mesh (and `kept_once`: the sizes) goes one way too; `every_caller_seen` follows a lambda a tree
map runs at once to the function calling the map."""

from __future__ import annotations

import ast

import pytest

from ast_programs import parsed
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Mesh
from jaxfix.codemods.module_edits import every_caller_seen, kept_once, read_once

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
    assert every_caller_seen(engine.contexts, module, node) is seen


HOLDERS = """\
import jax
from jax.sharding import NamedSharding, PartitionSpec as P


class Model:
    def __init__(self, mesh):
        self.mesh = mesh

    def run(self):
        return self.mesh

    def save(self):
        return self.mesh


def report(held):
    return held


def make(mesh):
    return Model(mesh)


def build():
    return jax.make_mesh((2, 4), ("a", "b"))


def main():
    mesh = build()
    {reads}
"""


@pytest.mark.parametrize(
    "reads, once",
    [
        ("model = Model(mesh)\n    model.run()", True),
        ("model = Model(mesh)\n    model.run()\n    model.save()", True),
        ("model = Model(mesh)\n    model.run()\n    report(model)", False),
        ("report(Model(mesh))", True),
        ("model = make(mesh)\n    model.run()", True),
        ("model = make(mesh)\n    model.run()\n    report(model)", False),
        ("s = NamedSharding(mesh, P('a'))\n    report(jax.device_put(1.0, s))", True),
        (
            "s = NamedSharding(mesh, P('a'))\n"
            "    report(jax.device_put(1.0, s))\n"
            "    report(jax.device_put(2.0, s))",
            False,
        ),
        ("report(mesh)", True),
    ],
)
def test_an_object_keeping_the_mesh_goes_one_way_too(reads: str, once: bool) -> None:
    engine, module = parsed(HOLDERS.format(reads=reads))
    read = next(
        n
        for n in ast.walk(_main(module))
        if isinstance(n, ast.Name) and n.id == "mesh" and isinstance(n.ctx, ast.Load)
    )
    mesh = engine.value_of(module, read)
    assert isinstance(mesh, Mesh)
    assert read_once(engine.evaluator, mesh.built_at) is once


SIZES = """\
class Config:
    def __init__(self, shape):
        self.shape = shape


def report(held):
    return held


def main():
    {body}
"""


@pytest.mark.parametrize(
    "body, once",
    [
        ("report(Config((2, 4)))", True),
        ("cfg = Config((2, 4))\n    report(cfg)", True),
        ("cfg = Config((2, 4))\n    report(cfg)\n    report(cfg.shape)", False),
        ("report((2, 4))", True),
    ],
)
def test_the_construction_a_literal_is_given_to_goes_one_way(
    body: str, once: bool
) -> None:
    engine, module = parsed(SIZES.format(body=body))
    literal = next(n for n in ast.walk(_main(module)) if isinstance(n, ast.Tuple))
    assert kept_once(engine.evaluator, module, literal) is once


def _main(module: Module) -> ast.FunctionDef:
    return next(
        n
        for n in module.tree.body
        if isinstance(n, ast.FunctionDef) and n.name == "main"
    )
