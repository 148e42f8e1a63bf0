"""Run-time facts are an overlay on a rule's answers at a confirmed node
(jaxfix/analysis/ast_engine/evidence.py): the log's mesh of a role fills in what the code leaves
unknown, a mesh the code shows that the log contradicts is never overwritten, and evidence is
matched to the `ast` nodes on its line (and columns, which count characters, not bytes)."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.evidence import (
    Confirmed,
    changed_since_the_log,
    confirmed_mesh,
    contradicts,
)
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import AxisType, Mesh, MeshKind
from jaxfix.check.engine import check_source
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.evidence.facts import Evidence, Facts, MeshFacts, ValueSite
from jaxfix.ground.diagnostics import Safety
from jaxfix.settings.options import Options

NODE = ast.Name("mesh")
LOGGED = MeshFacts("abstract", ("data", "model"), (16, 4), ("Auto", "Auto"), False)
OTHER = MeshFacts("abstract", ("data", "model"), (8, 4), ("Auto", "Auto"), False)


def _confirmed(*news: MeshFacts) -> Confirmed:
    facts = tuple(Facts.of({"new": mesh}) for mesh in news)
    return Confirmed(Evidence("JAX002", 3, tuple(range(1, len(news) + 1)), facts))


def _static(
    sizes: tuple[int | None, ...] | None,
    types: tuple[AxisType, ...] | None = None,
) -> Mesh:
    return Mesh(
        kind=MeshKind.ABSTRACT,
        axis_names=("data", "model"),
        axis_sizes=sizes,
        axis_types=types,
        has_abstract_device=False,
        origin=NODE,
    )


def test_the_log_fills_in_what_the_code_leaves_unknown() -> None:
    confirmed = _confirmed(LOGGED)
    filled = confirmed.fill("new", None, NODE)
    assert filled is not None and (filled.axis_sizes, filled.origin) == ((16, 4), NODE)
    partly = confirmed.fill("new", _static((None, 4)), NODE)
    assert partly is not None and partly.axis_sizes == (16, 4)
    assert partly.axis_types == (AxisType.AUTO, AxisType.AUTO)  # unknown in the code
    assert confirmed.fill("prev", None, NODE) is None  # a role the log does not name


def test_what_the_code_shows_is_kept_and_a_contradiction_is_found() -> None:
    confirmed = _confirmed(LOGGED)
    shown = _static((8, 4))
    kept = confirmed.fill("new", shown, NODE)
    assert kept is not None and kept.axis_sizes == (8, 4)
    contradiction = confirmed.contradiction("new", shown)
    assert contradiction is not None and contradiction.axis_sizes == (16, 4)
    assert contradiction.origin is NODE  # where the code shows its mesh
    assert confirmed.contradiction("new", _static((16, 4))) is None
    assert confirmed.contradiction("new", _static((None, 4))) is None
    assert confirmed.contradiction("new", None) is None


def test_types_contradict_unless_they_are_a_version_default() -> None:
    explicit = _static((16, 4), (AxisType.EXPLICIT, AxisType.EXPLICIT))
    assert contradicts(explicit, LOGGED)
    assert not contradicts(explicit, LOGGED, types=False)
    assert not contradicts(_static((16, 4)), LOGGED)  # types the code does not show
    assert contradicts(_static((16,)), LOGGED)  # another number of axes


def test_tracebacks_that_disagree_fill_in_nothing_but_are_all_listed() -> None:
    confirmed = _confirmed(LOGGED, OTHER, LOGGED)
    assert confirmed.agreed("new") is None
    assert confirmed.fill("new", None, NODE) is None
    assert [m.axis_sizes for m in confirmed.logged("new", NODE)] == [(16, 4), (8, 4)]
    assert confirmed.where == "log lines 1, 2, 3"


def test_a_concrete_logged_mesh_is_a_concrete_value() -> None:
    concrete = MeshFacts("concrete", ("x",), (8,), None, False)
    value = confirmed_mesh(None, concrete, NODE)
    assert (value.kind, value.axis_types, value.size) == (MeshKind.CONCRETE, None, 8)


def test_changed_since_the_log_says_both() -> None:
    assert changed_since_the_log("(8, 4)", "(16, 4)") == (
        "the code shows (8, 4) here, not (16, 4) in the log (changed since the log?)"
    )


def test_no_rule_reads_the_log_itself() -> None:
    """Rules ask through the overlay: no `_from_log` of their own."""
    assert not [code for code, rule in RULES.items() if hasattr(rule, "_from_log")]


# -- matching evidence to nodes ----------------------------------------------------------

SOURCE = (
    "import jax\n"
    "def f(x):\n"
    "    return x\n"
    "\x0c\n"  # a form feed: no line break for Python, one for str.splitlines
    "# déjà vu: a comment with characters of two bytes\n"
    "α = 'ééééé'; jax.jit(f).lower(1); jax.jit(f).lower(2)\n"
    "jax.jit(f).lower(\n"
    "    3)\n"
)


def _analysis(tmp_path: Path, *evidence: Evidence) -> Analysis:
    path = tmp_path / "main.py"
    path.write_bytes(SOURCE.encode())
    engine = Engine()
    module = engine.module(path)
    assert isinstance(module, Module)
    return Analysis(engine, module, evidence)


def _lowers(analysis: Analysis) -> list[ast.Call]:
    """The `.lower(...)` calls, in source order."""
    calls = [
        n
        for n in ast.walk(analysis.module.tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "lower"
    ]
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def _evidence(line: int, columns: tuple[int, int] | None = None) -> Evidence:
    return Evidence("JAX001", line, (7,), (Facts.of({}),), columns)


def test_columns_in_characters_tell_two_calls_on_a_line_apart(tmp_path: Path) -> None:
    text = SOURCE.split("\n")[5]
    start = text.index(
        "jax.jit(f).lower(2)"
    )  # characters: `α` and `é` are two bytes each
    evidence = _evidence(6, (start, start + len("jax.jit(f).lower(2)")))
    analysis = _analysis(tmp_path, evidence)
    first, second, _ = _lowers(analysis)
    assert (
        second.col_offset == start + 6
    )  # so in bytes the first call ends past its start
    assert analysis.confirmed(first, "JAX001") is None
    confirmed = analysis.confirmed(second, "JAX001")
    assert confirmed is not None and confirmed.evidence is evidence
    assert analysis.evidence.matched == {evidence: second}
    assert analysis.confirmed(second, "JAX002") is None  # another rule's error


def test_without_columns_every_node_on_the_line_matches(tmp_path: Path) -> None:
    evidence = _evidence(6)
    analysis = _analysis(tmp_path, evidence)
    first, second, multi = _lowers(analysis)
    assert analysis.evidence.at(first, "JAX001") is evidence
    assert analysis.evidence.at(second, "JAX001") is evidence
    assert analysis.evidence.at(multi, "JAX001") is None
    last_line = _analysis(tmp_path, _evidence(8))
    assert last_line.evidence.at(_lowers(last_line)[2], "JAX001") is not None


def test_a_report_is_confirmed_by_evidence_matched_around_it(tmp_path: Path) -> None:
    evidence, elsewhere = _evidence(6), _evidence(8)
    analysis = _analysis(tmp_path, evidence, elsewhere)
    found = analysis.evidence
    _, second, multi = _lowers(analysis)
    assert found.at(second, "JAX001") is evidence
    statement = analysis.module.statement_of(second)
    assert statement is not None
    assert (
        found.confirms("JAX001", second.func) is evidence
    )  # the matched node is around it
    assert (
        found.confirms("JAX001", statement) is None
    )  # around the matched node: not it
    # A rule that never asked: evidence on the reported node's lines no node was matched to.
    assert found.confirms("JAX001", multi) is elsewhere
    assert found.matched[elsewhere] is multi
    assert found.confirms("JAX002", multi) is None


def test_a_report_on_part_of_a_call_is_confirmed_by_the_calls_first_line(
    tmp_path: Path,
) -> None:
    """`jax.jit(f).lower(\n    3)` raised on its first line: a report on `3` (a keyword of
    a multi-line `@partial(...)`) is the call's; evidence of another statement is not."""
    analysis = _analysis(tmp_path, _evidence(7))
    argument = _lowers(analysis)[2].args[0]
    assert analysis.evidence.confirms("JAX001", argument) is not None
    other = _analysis(tmp_path, _evidence(6))
    assert other.evidence.confirms("JAX001", _lowers(other)[2].args[0]) is None


def test_without_evidence_nothing_is_confirmed(tmp_path: Path) -> None:
    analysis = _analysis(tmp_path)
    assert analysis.confirmed(_lowers(analysis)[0], "JAX001") is None


# -- confirmed mode in the engine, for a rule over `ast` ----------------------------------


class Boom(Rule):
    """Reports `boom(1)` from the code; any other `boom(...)` only where the log shows its
    mesh (the overlay's `fill`); a `boom(...)` the log confirms with no mesh is not reported."""

    __doc__ = "## What it does\nA test rule.\n"
    code = "JAX933"
    name = "boom"
    summary = "boom raises"
    fixes: dict[Safety, str] = {}
    tokens = ((b"boom",),)
    raises = ("boom on {mesh:new}",)

    def visit_Call(self, node: ast.Call) -> None:
        if not (isinstance(node.func, ast.Name) and node.func.id == "boom"):
            return
        confirmed = self.analysis.confirmed(node, self.code)
        if self.analysis.text(node) == "boom(1)":
            self.report(node, "boom(1) raises")
        elif confirmed is not None:
            mesh = confirmed.fill("new", None, node)
            if mesh is not None:
                self.report(node, f"raises on {mesh.axis_sizes} ({confirmed.where})")


def _confirming(line: int, *sizes: int) -> Evidence:
    facts = Facts.of(
        {"new": MeshFacts("abstract", ("x",) * len(sizes), sizes, None, False)}
        if sizes
        else {}
    )
    return Evidence("JAX933", line, (40 + line,), (facts,))


def _run(source: str, evidence: tuple[Evidence, ...] | None) -> list[str]:
    _, diagnostics = check_source(
        source.encode(), Options(select=("JAX933",)), evidence=evidence
    )
    return [f"{d.start.line} {d.message}" for d in diagnostics]


BOOMS = "boom(1)\nboom(2)\nprint(3)\nboom(4)\n"


def test_only_reports_the_log_confirms_are_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(RULES, Boom.code, Boom)
    assert _run(BOOMS, None) == ["1 boom(1) raises"]
    assert _run(BOOMS, (_confirming(1),)) == ["1 boom(1) raises"]
    assert _run(BOOMS, (_confirming(2, 8),)) == ["2 raises on (8,) (log line 42)"]


def test_evidence_no_report_stands_for_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULES, Boom.code, Boom)
    found = _run(BOOMS, (_confirming(3, 8), _confirming(4)))
    assert found == [
        "3 the log shows JAX raised JAX933 at this line (log line 43), but no call on this "
        "line is one JAX933 checks: JAX raised it inside code this line calls (in another "
        "module or a library); give jaxfix that file's path, or fix it there",
        "4 the log shows JAX raised JAX933 at this line (log line 44), but jaxfix cannot "
        "tell why from this code",
    ]


def test_evidence_whose_value_is_in_another_file_names_that_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A test raised under its fixture's `with mesh:` (jaxfix/check/value_sites.py): the
    raising line names the fixture's line, where the report and fix are, not the file name."""
    monkeypatch.setitem(RULES, Boom.code, Boom)
    site = ValueSite(
        (Path("tests/ops/test_matmul.py"), 3),
        Path("tests/conftest.py"),
        (18, 9, 18, 40),
        "Mesh(grid, axis_names=AXES)",
        why="the run raised inside this block",
    )
    found = _run(BOOMS, (replace(_confirming(3), value_site=site),))
    assert found == [
        (
            "3 the log shows JAX raised JAX933 at this line (log line 43), but no call on "
            "this line is one JAX933 checks: JAX raised it inside code this line calls; "
            "`Mesh(grid, axis_names=AXES)` at tests/conftest.py:18 (the run raised inside "
            "this block) is where jaxfix reports and fixes it"
        )
    ]


class Bang(Rule):
    """Reports `bang(1)` from the code alone, never asking for evidence (as most rules of the
    family); it says which calls it checks: every `bang(...)`."""

    __doc__ = "## What it does\nA test rule.\n"
    code = "JAX934"
    name = "bang"
    summary = "bang raises"
    fixes: dict[Safety, str] = {}
    tokens = ((b"bang",),)
    raises = ("bang",)

    def visit_Call(self, node: ast.Call) -> None:
        if self.checks(node) and self.analysis.text(node) == "bang(1)":
            self.report(node, "bang(1) raises")

    def checks(self, call: ast.Call) -> bool:
        return isinstance(call.func, ast.Name) and call.func.id == "bang"


def test_a_rule_that_checks_a_call_there_cannot_tell_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rule that never asks for evidence but says which calls it checks: evidence on a line
    with such a call it left is one jaxfix cannot explain, not one raised elsewhere."""
    monkeypatch.setitem(RULES, Bang.code, Bang)
    source = "bang(1)\nbang(2)\nprint(3)\n"
    found = [
        f"{d.start.line} {d.message}"
        for d in check_source(
            source.encode(),
            Options(select=("JAX934",)),
            evidence=tuple(
                Evidence("JAX934", line, (40 + line,), (Facts(),)) for line in (1, 2, 3)
            ),
        )[1]
    ]
    assert found == [
        "1 bang(1) raises",
        "2 the log shows JAX raised JAX934 at this line (log line 42), but jaxfix cannot "
        "tell why from this code",
        "3 the log shows JAX raised JAX934 at this line (log line 43), but no call on this "
        "line is one JAX934 checks: JAX raised it inside code this line calls (in another "
        "module or a library); give jaxfix that file's path, or fix it there",
    ]


def test_a_confirmed_test_of_the_error_is_still_a_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(RULES, Boom.code, Boom)
    source = (
        "import pytest\nwith pytest.raises(ValueError, match='boom on'):\n    boom(1)\n"
    )
    assert _run(source, None) == []
    assert _run(source, (_confirming(3),)) == [
        "3 the log shows JAX raised JAX933 at this line (log line 43), but jaxfix cannot "
        "tell why from this code"
    ]
