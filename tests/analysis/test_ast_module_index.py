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
