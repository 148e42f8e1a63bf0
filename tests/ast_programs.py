"""Small programs asked of the `ast` engine in memory: the module, its last expression, the
calls of a name, and the contexts around a node in a form a test can compare."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.contexts import Entry, Site
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Mesh, Value
from jaxfix.analysis.names import Api

# A path no test writes: the module's source is given, never read.
MAIN = Path("/nonexistent/jaxfix-tests/main.py")


def parsed(
    source: str,
    jax_version: tuple[int, ...] | None = (0, 10, 2),
    path: Path = MAIN,
    roots: tuple[Path, ...] = (),
) -> tuple[Engine, Module]:
    """A fresh engine and the module of `source` (dedented) at `path`."""
    engine = Engine(roots=roots, jax_version=jax_version)
    module = engine.module(path, textwrap.dedent(source).encode())
    assert isinstance(module, Module), module
    return engine, module


def of_file(path: Path, roots: tuple[Path, ...] = ()) -> tuple[Engine, Module]:
    """A fresh engine over the tree's files (callers are looked for in them) and `path`."""
    files = tuple(p for r in roots for p in r.rglob("*.py")) or (path,)
    engine = Engine(roots=roots, files=files, jax_version=(0, 10, 2))
    module = engine.module(path)
    assert isinstance(module, Module), module
    return engine, module


def last_expr(module: Module) -> ast.expr:
    """The expression of the module's last statement (`value` in `target = value`, or a bare
    expression)."""
    statement = module.tree.body[-1]
    assert isinstance(statement, (ast.Assign, ast.Expr)), statement
    return statement.value


def last_value(source: str, jax_version: tuple[int, ...] | None = (0, 10, 2)) -> Value:
    engine, module = parsed(source, jax_version)
    return engine.value_of(module, last_expr(module))


def mesh_of(source: str, jax_version: tuple[int, ...] | None = (0, 10, 2)) -> Mesh:
    found = last_value(source, jax_version)
    assert isinstance(found, Mesh), found
    return found


def calls(module: Module, name: str) -> list[ast.Call]:
    """The calls `name(...)` in the module, in source order."""
    found = [
        node
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
    ]
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))


def call(module: Module, name: str = "target") -> ast.Call:
    """The one call `name(...)` in the module."""
    (found,) = calls(module, name)
    return found


def shape(mesh: Value) -> object:
    """(sizes, names) of a mesh, else "unknown"."""
    if isinstance(mesh, Mesh):
        return (mesh.axis_sizes, mesh.axis_names)
    return "unknown"


def described(site: Site) -> tuple[Entry, Api | None, object]:
    return (site.entry, site.api, shape(site.mesh))


def ways(
    engine: Engine, module: Module, node: ast.AST
) -> list[list[tuple[object, ...]]]:
    """Each way `node` may run, as its sites (entry, api, shape), outermost first."""
    return [[described(s) for s in way] for way in engine.ways_at(module, node)]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
