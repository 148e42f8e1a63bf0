"""The analysis's cheaper metadata gives exactly what LibCST's own providers give."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst._batched_visitor import _BatchedCSTVisitor
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from fixture_cases import python_sources
from jaxfix.analysis import parents as parents_module
from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.analysis.names import api_of_qualified_names
from jaxfix.analysis.parents import parent_map
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper

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


def _every_node(root: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            found.append(node)
            return True

    root.visit(Collect())
    return found


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_parent_map_is_libcsts_parent_map(name, source, monkeypatch):
    monkeypatch.setattr(
        parents_module, "_FIELD_GETTERS", {}
    )  # each source teaches it the field orders
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(
        ParentNodeProvider
    )
    parents = parent_map(module)
    assert parents == dict(expected)
    assert (
        list(parents) == _every_node(module)[1:]
    )  # every node but the root, in visiting order


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_api_resolver_names_are_libcsts_qualified_names(name, source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(
        QualifiedNameProvider
    )
    analysis = ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), None
    )
    for node in _every_node(module):
        value = expected.get(node, set())
        assert analysis.names.qualified_names(node) == (
            value() if callable(value) else value
        ), node


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_api_resolver_answers_as_the_qualified_names_do(name, source):
    """Its shortcut for attributes that no API ends with gives what the names give."""
    module = cst.parse_module(source)
    analysis = ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), None
    )
    for node in _every_node(module):
        assert analysis.names.api(node) is api_of_qualified_names(
            analysis.names.qualified_names(node)
        ), node


@pytest.mark.parametrize(
    "name, source", SOURCES[:8], ids=[name for name, _ in SOURCES[:8]]
)
def test_module_level_batch_wrapper_gives_libcsts_positions(name, source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert (
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        == expected
    )


def test_module_level_batch_wrapper_still_walks_for_visitors_that_look_below_the_module():
    module = cst.parse_module("f(g(1))\nclass C:\n    x = h()\n")

    class Calls(cst.BatchableCSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def visit_Call(self, node: cst.Call) -> None:
            self.seen.append(cst.ensure_type(node.func, cst.Name).value)

    first, second = Calls(), Calls()
    ModuleLevelBatchWrapper(module, unsafe_skip_copy=True).visit_batched(
        [first, second]
    )
    assert first.seen == second.seen == ["f", "g", "h"]


def test_nodes_of_a_kind_come_in_visiting_order():
    module = cst.parse_module("a.b(c.d(e.f))\ndef g():\n    return h.i\n")
    analysis = ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), None
    )
    assert [cst.Module([]).code_for_node(n) for n in analysis.nodes(cst.Attribute)] == [
        "a.b",
        "c.d",
        "e.f",
        "h.i",
    ]
    assert analysis.nodes(cst.Module) == []


@pytest.fixture
def batched_visits(monkeypatch) -> list[cst.CSTNode]:
    """Every node LibCST's batched traversal visits (through its private visitor, the one place
    all batched traversals pass)."""
    visited: list[cst.CSTNode] = []
    on_visit = _BatchedCSTVisitor.on_visit

    def spy(self, node: cst.CSTNode) -> bool:
        visited.append(node)
        return on_visit(self, node)

    monkeypatch.setattr(_BatchedCSTVisitor, "on_visit", spy)
    return visited


MODULE_LEVEL_PROVIDERS = [ScopeProvider, PositionProvider]


@pytest.mark.parametrize("provider", MODULE_LEVEL_PROVIDERS, ids=lambda p: p.__name__)
def test_stock_wrapper_traverses_the_module_for_module_level_providers(
    provider, batched_visits
):
    """The control: LibCST walks the whole tree for these providers (ScopeProvider twice, once
    for its dependency ExpressionContextProvider), and the spy sees it."""
    module = cst.parse_module(textwrap.dedent(TRICKY["decorators and dotted imports"]))
    MetadataWrapper(module, unsafe_skip_copy=True).resolve(provider)
    assert set(batched_visits) == set(_every_node(module))


@pytest.mark.parametrize("provider", MODULE_LEVEL_PROVIDERS, ids=lambda p: p.__name__)
def test_module_level_batch_wrapper_resolves_them_without_a_traversal(
    provider, batched_visits
):
    module = cst.parse_module(textwrap.dedent(TRICKY["decorators and dotted imports"]))
    resolved = ModuleLevelBatchWrapper(module, unsafe_skip_copy=True).resolve(provider)
    assert module in resolved
    assert batched_visits == []


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_nodes_of_a_kind_are_every_such_node_of_the_parent_map(name, source):
    analysis = ModuleAnalysis(
        ModuleLevelBatchWrapper(cst.parse_module(source), unsafe_skip_copy=True), None
    )
    kinds = (
        cst.Call,
        cst.Attribute,
        cst.With,
        cst.Name,
        cst.FunctionDef,
        cst.BaseExpression,
        cst.BaseSmallStatement,
        cst.CSTNode,
        cst.Module,
    )
    for kind in kinds:
        assert analysis.nodes(kind) == [
            node for node in analysis.parents if isinstance(node, kind)
        ], kind
