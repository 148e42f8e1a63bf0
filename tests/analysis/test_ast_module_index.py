"""The `ast` engine's per-module index and its answers on tricky code: every node but the root
has its parent, and every expression's value and every call's contexts are answered (a value
or Unknown) without an error (ported from tests/test_analysis_metadata.py, whose facts were
about the LibCST engine's own metadata: parents, qualified names and positions as LibCST's
providers give them, its batched wrapper; those go with it)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from ast_programs import parsed
from fixture_cases import python_sources
from jaxfix.analysis.ast_engine.contexts import Site

TRICKY = {
    "empty": "",
    "comments only": "# a comment\n\n# another\n",
    "decorators and dotted imports": """
        import jax.sharding as shd
        import jax.experimental.pjit
        from functools import partial
        from jax import jit as J

        @partial(J, static_argnums=0)
        @jax.experimental.pjit.pjit
        def f(n, x=shd.PartitionSpec()):
            return shd.NamedSharding(x, n)

        class C(shd.Mesh):
            @staticmethod
            def g(): return f
    """,
    "shadowing, conditional imports and relative imports": """
        try:
            from jax.sharding import AbstractMesh as M
        except ImportError:
            from jax._src.mesh import AbstractMesh as M
        from . import sibling
        from ..parent import thing as other
        def h(M):
            return M((2,), ("x",)), sibling.x, other
        M = M if True else None
    """,
    "comprehensions, lambdas, walrus, star, f-strings": """
        import jax
        ys = [jax.jit(lambda v: v)(x) for x in range(3) if (n := x)]
        d = {k: v for k, *v in [(1, 2, 3)]}
        s = f"{jax.devices()[0]!r:>{n}}"
        g = (lambda *a, **k: a)(*ys, **d)
    """,
    "f-string fields visited only when present, first seen without them": """
        from jax import (devices,
                         jit as J)
        from .x import *
        a = f"{a}{b!r}"
        b = f"{a:>{w}}{b=!s:{f'{n:{m}}'}}" + rf'{c}'
        del a[0], b.c
    """,
    "global, nonlocal, async, match": """
        import jax
        X = 0
        def outer():
            y = 1
            async def inner():
                global X
                nonlocal y
                async with jax.set_mesh(m) as cm, other():
                    async for z in aiter():
                        X = await z
            return inner
        match jax.devices():
            case [first, *rest] if first:
                pass
            case {"k": jax.Device() as dev}:
                pass
    """,
    "annotations and strings": """
        from typing import TYPE_CHECKING
        import jax
        if TYPE_CHECKING:
            from jax.sharding import Mesh
        def f(m: "Mesh", n: jax.Array = None) -> "jax.Array":
            x: jax.sharding.PartitionSpec = jax.P()
            del x
    """,
}


def _sources() -> list[tuple[str, str]]:
    snippets = [(name, textwrap.dedent(code)) for name, code in TRICKY.items()]
    fixtures = [(path.name, path.read_text()) for path in python_sources()]
    assert len(fixtures) > 50
    return snippets + fixtures


SOURCES = _sources()


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_every_node_but_the_root_has_its_parent(name: str, source: str) -> None:
    _, module = parsed(source)
    shared = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
    expected = {
        child: node
        for node in ast.walk(module.tree)
        for child in ast.iter_child_nodes(node)
        if not isinstance(child, shared)  # one object for every `Load`, `Add`, ...
    }
    found = {c: p for c, p in module.parents.items() if not isinstance(c, shared)}
    assert found == expected


@pytest.mark.parametrize("name", list(TRICKY))
def test_every_expression_and_call_is_answered(name: str) -> None:
    engine, module = parsed(textwrap.dedent(TRICKY[name]))
    for node in ast.walk(module.tree):
        if isinstance(node, ast.expr):
            engine.value_of(module, node)  # a value or Unknown, never an error
        if isinstance(node, ast.Call):
            ways = engine.ways_at(module, node)
            assert all(isinstance(site, Site) for way in ways for site in way)
            engine.current_mesh(module, node)


def test_the_index_lists_the_names_functions_declare_nonlocal() -> None:
    """`declared_nonlocal`: every name a function declares `nonlocal`, at any depth; a
    `global` declaration is `declared_global`'s, not this."""
    _, module = parsed(
        "def f():\n"
        "    a = b = 0\n"
        "    def g():\n"
        "        nonlocal a\n"
        "        def h():\n"
        "            nonlocal b\n"
        "    def k():\n"
        "        global c\n"
    )
    assert module.declared_nonlocal == {"a", "b"}
    assert module.declared_global == {"c"}
    _, module = parsed("def f():\n    a = 0\n")
    assert module.declared_nonlocal == set()


def test_each_scope_has_one_frame() -> None:
    """`frame_at` gives the one frame of a node's scope, whatever node of it is asked about:
    the same object each time, equal to the frame made anew, its parent the enclosing
    scope's."""
    engine, module = parsed("class C:\n    def f(self, x):\n        return x + self\n")
    (method,) = [n for n in ast.walk(module.tree) if isinstance(n, ast.FunctionDef)]
    returned = method.body[0]
    assert isinstance(returned, ast.Return) and isinstance(returned.value, ast.BinOp)
    evaluator = engine.evaluator
    frame = evaluator.frame_at(module, returned.value.left)
    assert frame is evaluator.frame_at(module, returned.value.right)
    assert frame.scope is method and frame.args is None
    assert frame.parent is evaluator.frame_at(module, method)
    assert frame.parent is not None and frame.parent.args == ()
    engine, again = parsed("class C:\n    def f(self, x):\n        return x + self\n")
    assert engine.evaluator.frame_at(again, again.tree.body[0]).scope is again.tree
