"""Run-time facts are an overlay on a rule's answers at a confirmed node
(jaxfix/analysis/ast_engine/evidence.py): the log's mesh of a role fills in what the code leaves
unknown, a mesh the code shows that the log contradicts is never overwritten, and evidence is
matched to the `ast` nodes on its line (and columns, which count characters, not bytes)."""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.evidence import (
    Confirmed,
    EvidenceMap,
    changed_since_the_log,
    confirmed_mesh,
    contradicts,
)
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import AxisType, Mesh, MeshKind
from jaxfix.codemods import RULES
from jaxfix.evidence import Evidence, Facts, MeshFacts

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
    "# déjà vu: a comment with characters of two bytes\n"
    "α = 'ééééé'; jax.jit(f).lower(1); jax.jit(f).lower(2)\n"
    "jax.jit(f).lower(\n"
    "    3)\n"
)


def _module(tmp_path: Path) -> Module:
    path = tmp_path / "main.py"
    path.write_text(SOURCE, encoding="utf-8")
    module = Engine().module(path)
    assert isinstance(module, Module)
    return module


def _lowers(module: Module) -> list[ast.Call]:
    """The `.lower(...)` calls, in source order."""
    calls = [
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "lower"
    ]
    return sorted(calls, key=lambda c: (c.lineno, c.col_offset))


def _evidence(line: int, columns: tuple[int, int] | None = None) -> Evidence:
    return Evidence("JAX001", line, (7,), (Facts.of({}),), columns)


def test_columns_in_characters_tell_two_calls_on_a_line_apart(tmp_path: Path) -> None:
    module = _module(tmp_path)
    first, second, _ = _lowers(module)
    text = SOURCE.splitlines()[4]
    start = text.index(
        "jax.jit(f).lower(2)"
    )  # characters: `α` and `é` are two bytes each
    assert (
        second.col_offset == start + 6
    )  # so in bytes the first call ends past its start
    evidence = _evidence(5, (start, start + len("jax.jit(f).lower(2)")))
    found = EvidenceMap(module, (evidence,))
    assert found.at(first, "JAX001") is None
    assert found.at(second, "JAX001") is evidence
    assert found.matched == {evidence: second}
    assert found.at(second, "JAX002") is None  # another rule's error


def test_without_columns_every_node_on_the_line_matches(tmp_path: Path) -> None:
    module = _module(tmp_path)
    first, second, multi = _lowers(module)
    evidence = _evidence(5)
    found = EvidenceMap(module, (evidence,))
    assert found.at(first, "JAX001") is evidence
    assert found.at(second, "JAX001") is evidence
    assert found.at(multi, "JAX001") is None
    last_line = EvidenceMap(module, (_evidence(7),))
    assert last_line.at(multi, "JAX001") is not None  # a node spans its lines


def test_a_report_is_confirmed_by_evidence_matched_around_it(tmp_path: Path) -> None:
    module = _module(tmp_path)
    _, second, multi = _lowers(module)
    evidence, elsewhere = _evidence(5), _evidence(7)
    found = EvidenceMap(module, (evidence, elsewhere))
    assert found.at(second, "JAX001") is evidence
    statement = module.statement_of(second)
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
