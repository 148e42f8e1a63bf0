"""Rules over `ast`: reported where the node is (character columns), fixes written with LibCST
at the node's place, LibCST parsed only when a fix is applied, alongside a LibCST rule."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst
import pytest

from jaxfix.check.engine import check_source
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Fix, Safety
from jaxfix.settings.options import Options

_DOC = "## What it does\nA test rule.\n"


class Renamed(Rule):
    __doc__ = _DOC
    code = "JAX931"
    name = "renamed"
    summary = "old(x) is new(x)"
    fixes = {Safety.SAFE: "rename the call"}
    tokens = ((b"old",),)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "old":
            fix = Fix(
                "call new",
                ((node.func, lambda old: old.with_changes(value="new")),),
            )
            self.report(node, f"`{self.analysis.text(node)}` is old", fix=fix)


class Doubled(Rule):
    """Its fix replaces an integer with a constant, a second pass finds nothing more."""

    __doc__ = _DOC
    code = "JAX932"
    name = "doubled"
    summary = "7 is 14"
    fixes = {Safety.UNSAFE: "double it"}
    tokens = ((b"7",),)

    def visit_Constant(self, node: ast.Constant) -> None:
        if node.value == 7:
            fix = Fix(
                "double",
                ((node, lambda old: old.with_changes(value="14")),),
                Safety.UNSAFE,
            )
            self.report(node, "seven", fix=fix)


@pytest.fixture
def rules(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for rule in (Renamed, Doubled):
        monkeypatch.setitem(RULES, rule.code, rule)
    yield


def _check(source: str, **options: object) -> tuple[str | None, list[str]]:
    fixed, diagnostics = check_source(
        source.encode(), Options(select=("JAX93",), **options)
    )
    return (
        fixed.decode() if fixed is not None else None,
        [f"{d.start}-{d.end} {d.code} {d.message}" for d in diagnostics],
    )


def test_a_report_is_placed_in_characters_and_its_fix_keeps_the_formatting(
    rules: None,
) -> None:
    source = 'é = "ü"; y = ( old )( 1,\n   2 )  # keep\n'
    fixed, found = _check(source)
    assert found == ["1:14-2:7 JAX931 `( old )( 1,\n   2 )` is old"]
    assert fixed == 'é = "ü"; y = ( new )( 1,\n   2 )  # keep\n'


def test_an_unsafe_fix_waits_for_unsafe_fixes(rules: None) -> None:
    source = "x = (7)\nold(7)\n"
    fixed, found = _check(source)
    assert found == [
        "1:6-1:7 JAX932 seven",
        "2:1-2:7 JAX931 `old(7)` is old",
        "2:5-2:6 JAX932 seven",
    ]
    assert fixed == "x = (7)\nnew(7)\n"
    fixed, _ = _check(source, unsafe_fixes=True)
    assert fixed == "x = (14)\nnew(14)\n"


def test_no_fix_no_libcst_parse(rules: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(source: object) -> None:
        raise AssertionError("LibCST parsed a file that gets no fix")

    monkeypatch.setattr(cst, "parse_module", refuse)
    fixed, found = _check("x = 7\n")
    assert (fixed, found) == (None, ["1:5-1:6 JAX932 seven"])


def test_a_suppressed_report_is_dropped(rules: None) -> None:
    assert _check("x = 7  # noqa: JAX932\n") == (None, [])
