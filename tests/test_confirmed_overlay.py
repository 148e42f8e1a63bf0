"""Run-time facts are an overlay on a rule's answers at a confirmed node
(jaxfix/analysis/confirmed.py `Confirmed`): the log's mesh of a role fills in what the code
leaves unknown, and a mesh the code shows that the log contradicts is never overwritten."""

from __future__ import annotations

import libcst as cst

from jaxfix.analysis.confirmed import Confirmed
from jaxfix.analysis.values import MeshKind, MeshValue
from jaxfix.codemods import RULES
from jaxfix.evidence import Evidence, Facts, MeshFacts

NODE = cst.Name("mesh")
LOGGED = MeshFacts("abstract", ("data", "model"), (16, 4), ("Auto", "Auto"), False)
OTHER = MeshFacts("abstract", ("data", "model"), (8, 4), ("Auto", "Auto"), False)


def _confirmed(*news: MeshFacts) -> Confirmed:
    facts = tuple(Facts.of({"new": mesh}) for mesh in news)
    return Confirmed(Evidence("JAX002", 3, tuple(range(1, len(news) + 1)), facts))


def _static(sizes: tuple[int | None, ...] | None) -> MeshValue:
    return MeshValue(
        kind=MeshKind.ABSTRACT,
        axis_names=("data", "model"),
        axis_sizes=sizes,
        axis_types=None,
        has_abstract_device=False,
        node=NODE,
    )


def test_the_log_fills_in_what_the_code_leaves_unknown():
    confirmed = _confirmed(LOGGED)
    filled = confirmed.fill("new", None, NODE)
    assert filled is not None and (filled.axis_sizes, filled.node) == ((16, 4), NODE)
    partly = confirmed.fill("new", _static((None, 4)), NODE)
    assert partly is not None and partly.axis_sizes == (16, 4)
    assert partly.axis_types is not None  # unknown in the code: the log's
    assert confirmed.fill("prev", None, NODE) is None  # a role the log does not name


def test_what_the_code_shows_is_kept_and_a_contradiction_is_found():
    confirmed = _confirmed(LOGGED)
    shown = _static((8, 4))
    kept = confirmed.fill("new", shown, NODE)
    assert kept is not None and kept.axis_sizes == (8, 4)
    contradiction = confirmed.contradiction("new", shown)
    assert contradiction is not None and contradiction.axis_sizes == (16, 4)
    assert confirmed.contradiction("new", _static((16, 4))) is None
    assert confirmed.contradiction("new", _static((None, 4))) is None


def test_tracebacks_that_disagree_fill_in_nothing_but_are_all_listed():
    confirmed = _confirmed(LOGGED, OTHER, LOGGED)
    assert confirmed.agreed("new") is None
    assert confirmed.fill("new", None, NODE) is None
    assert [m.axis_sizes for m in confirmed.logged("new", NODE)] == [(16, 4), (8, 4)]


def test_no_rule_reads_the_log_itself():
    """Rules ask through the overlay: no `_from_log` of their own."""
    assert not [code for code, rule in RULES.items() if hasattr(rule, "_from_log")]
