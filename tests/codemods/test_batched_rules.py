"""The engine runs every rule in one batched traversal; that must change nothing: the rules run
together report exactly what each reports alone, merged and sorted as the engine sorts.

A rule that leaked state into the shared analysis, or into a class attribute another rule reads,
would pass its own fixtures and still break here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from fixture_cases import FIXTURES, ROOT, python_sources
from jax_program_strategy import Program, programs
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.check import engine
from jaxfix.check.engine import check_source, selected_rules
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Diagnostic
from jaxfix.settings.options import Options

OPTION_SETS = (Options(), Options(unsafe_fixes=True))
FIXTURE_SOURCES = python_sources()  # before and .fixed.py files alike


@pytest.fixture(autouse=True)
def every_rule_visits_every_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the prefilter most fixtures have one candidate rule, and "together" would be the
    very same run as "alone"; with it off, all rules share the traversal of every file."""
    monkeypatch.setattr(Rule, "may_apply", classmethod(lambda cls, source: True))


def _engine_order(diagnostic: Diagnostic) -> tuple[int, int, int, int, str]:
    """The engine's sort: by span, then code (its 0-based columns order the same as these)."""
    start, end = diagnostic.start, diagnostic.end
    return start.line, start.column, end.line, end.column, diagnostic.code


def assert_together_is_alone_merged(source: bytes, options: Options) -> None:
    fixed, diagnostics = check_source(source, options)
    alone = [
        check_source(source, options, rules=[rule]) for rule in selected_rules(options)
    ]
    merged = sorted(
        (d for _, rule_diagnostics in alone for d in rule_diagnostics),
        key=_engine_order,
    )
    assert list(diagnostics) == merged
    fixed_alone = [rule_fixed for rule_fixed, _ in alone if rule_fixed is not None]
    # Fixes of two rules may legitimately interact (overlapping edits wait for a later pass,
    # imports merge), so with more than one fixing rule there are no single-rule bytes to compare.
    # No fixture has two fixing rules today; generated programs do.
    if len(fixed_alone) <= 1:
        assert fixed == (fixed_alone[0] if fixed_alone else None)


# Fixtures run with unsafe fixes only, to halve the time: default options report the same
# diagnostics (the first pass does not depend on them, bar `applied`) and apply a subset of the
# fixes; generated programs below run with both.
@pytest.mark.parametrize(
    "path", FIXTURE_SOURCES, ids=[str(p.relative_to(ROOT)) for p in FIXTURE_SOURCES]
)
def test_fixture_rules_together_report_what_they_report_alone(path: Path):
    assert_together_is_alone_merged(path.read_bytes(), Options(unsafe_fixes=True))


# Four engine runs per program and option set: few examples keep it fast.
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(programs())
def test_generated_program_rules_together_report_what_they_report_alone(
    program: Program,
):
    for options in OPTION_SETS:
        assert_together_is_alone_merged(program.source.encode(), options)


class _CallRecorder(Rule):
    code, name, summary, fixes, tokens = (
        "JAX990",
        "recorder",
        "records what it visits",
        {},
        (),
    )

    def visit_Call(self, node: ast.Call) -> None:
        self.seen.append(node)


class _Recorder(_CallRecorder):
    def visit_Name(self, node: ast.Name) -> None:
        self.seen.append(node)


class _ContextRecorder(_Recorder):
    """Also looks at contexts, which the walk passes by when no rule does."""

    def visit_Load(self, node: ast.Load) -> None:
        self.seen.append(node)

    def visit_Store(self, node: ast.Store) -> None:
        self.seen.append(node)


def _source_order(node: ast.AST) -> list[ast.AST]:
    """A node, then each child's nodes in turn: what a recursive `ast.NodeVisitor` meets."""
    found = [node]
    for child in ast.iter_child_nodes(node):
        found += _source_order(child)
    return found


@pytest.mark.parametrize(
    ("recorder", "kinds"),
    [
        (_Recorder, (ast.Call, ast.Name)),
        (_CallRecorder, (ast.Call,)),
        (_ContextRecorder, (ast.Call, ast.Name, ast.Load, ast.Store)),
    ],
    ids=["calls-and-names", "calls-only", "with-contexts"],
)
def test_rules_meet_the_nodes_a_visitor_meets_in_its_order(
    recorder: type[_CallRecorder], kinds: tuple[type[ast.AST], ...]
):
    """Every rule's visitors are called in one walk, in a recursive visitor's order; a rule
    that looks at calls only is given the module index's calls, in the same order."""
    path = next(
        p
        for p in sorted((FIXTURES / "JAX001").rglob("*.py"))
        if "jit(" in p.read_text()
    )
    source = path.read_bytes()
    module = Module(path, ast.parse(source), source)
    rule = recorder(None, Options())  # type: ignore[arg-type] - it asks nothing
    rule.seen = []
    engine._walk(module, [rule])
    expected = [n for n in _source_order(module.tree) if isinstance(n, kinds)]
    assert rule.seen == expected and len(expected) > 10
