"""Code that tests an error is not a bug: reports inside `assertRaises`-style blocks that expect
the rule's error are dropped; blocks that expect something else drop nothing."""

from __future__ import annotations

import random
import re

import pytest

from helpers import run_engine
from jaxfix.analysis.pattern_match import Unmodelled, may_search
from jaxfix.codemods import RULES

HEADER = """\
import re
import unittest
import pytest
from jax.sharding import AbstractMesh, use_abstract_mesh

OUTER = AbstractMesh((8, 4), ("data", "model"))
INNER = AbstractMesh((16, 4), ("data", "model"))
PATTERN = "cannot change the size"


class T(unittest.TestCase):
    def test_it(self):
        with use_abstract_mesh(OUTER):
"""
JAX002_TEMPLATE = RULES["JAX002"].raises[0]


def reported(block: str) -> bool:
    """Whether JAX002 is reported for `block` (indented under the outer mesh of a test method)."""
    body = "".join(f"            {line}\n" for line in block.splitlines())
    result = run_engine(HEADER + body, ["--unsafe-fixes"])
    assert result.error is None, result.error
    return any(d.code == "JAX002" for d in result.diagnostics)


SITE = "with use_abstract_mesh(INNER):\n    pass"


def expecting(manager: str) -> str:
    return f"with {manager}:\n" + "".join(f"    {line}\n" for line in SITE.splitlines())


def test_the_site_alone_is_reported():
    assert reported(SITE)


@pytest.mark.parametrize(
    "manager",
    [
        "self.assertRaises(ValueError)",
        "self.assertRaises(Exception)",
        "self.assertRaises((TypeError, ValueError))",
        "self.assertRaisesRegex(ValueError, 'use_abstract_mesh cannot change the size.*')",
        "self.assertRaisesRegex(ValueError, '.*cannot change the size of the mesh.*')",
        "self.assertRaisesRegex(ValueError, r'with size=\\d+ and prev mesh')",
        "self.assertRaisesRegex(ValueError, \"Got new mesh: AbstractMesh\\\\('data': 16\")",
        "self.assertRaisesRegex(ValueError, expected_regex='(?i)USE_ABSTRACT_MESH')",
        "self.assertRaisesRegex(ValueError, PATTERN)",
        "self.assertRaisesRegex(ValueError, re.compile('size of the mesh'))",
        "self.assertRaisesRegex(ValueError, f'{PATTERN}')",
        "self.assertRaisesRegex(ValueError, re.escape('anything'))",
        "self.assertRaisesRegex(ValueError, 'unbalanced (')",
        "self.assertRaisesWithPredicateMatch(ValueError, lambda e: True)",
        "self.assertRaises(CustomError)",
        "pytest.raises(ValueError)",
        "pytest.raises(ValueError, match='cannot change the size')",
        "self.assertRaisesRegex(ValueError, 'size', msg='why it failed')",
    ],
)
def test_a_block_expecting_the_error_is_not_reported(manager):
    assert not reported(expecting(manager))


@pytest.mark.parametrize(
    "manager",
    [
        "self.assertRaises(TypeError)",
        "self.assertRaises((TypeError, KeyError))",
        "self.assertRaisesRegex(ValueError, 'Mismatch details')",
        "self.assertRaisesRegex(ValueError, '^Got new mesh')",
        "self.assertRaisesRegex(ValueError, 'and prev mesh: None')",
        "self.assertRaisesRegex(RuntimeError, 'cannot change the size')",
        "self.assertRaisesWithLiteralMatch(ValueError, 'use_abstract_mesh cannot change the size')",
        "pytest.raises(ValueError, match='Received incompatible devices')",
        "self.assertWarns(DeprecationWarning)",
    ],
)
def test_a_block_expecting_something_else_is_reported(manager):
    assert reported(expecting(manager))


def test_later_items_of_the_same_with_are_inside_earlier_ones_are_not():
    assert not reported(
        "with self.assertRaises(ValueError), use_abstract_mesh(INNER):\n    pass"
    )
    assert reported(
        "with use_abstract_mesh(INNER), self.assertRaises(ValueError):\n    pass"
    )


def test_a_function_defined_in_the_block_counts_as_run_there():
    assert not reported(
        "with self.assertRaises(ValueError):\n    def stage():\n        with use_abstract_mesh(INNER):\n            pass\n    stage()"
    )


def test_a_function_called_only_inside_such_blocks_is_a_test_of_the_error():
    helper = "def stage():\n    with use_abstract_mesh(INNER):\n        pass\n"
    tested = "with self.assertRaises(ValueError):\n    stage()\n"
    body = "".join(f"            {line}\n" for line in tested.splitlines())
    result = run_engine(
        HEADER.replace("class T", helper + "\n\nclass T") + body, ["--unsafe-fixes"]
    )
    assert not [d for d in result.diagnostics if d.code == "JAX002"]
    also_untested = body + "".join(f"            {line}\n" for line in ["stage()"])
    result = run_engine(
        HEADER.replace("class T", helper + "\n\nclass T") + also_untested,
        ["--unsafe-fixes"],
    )
    assert [d for d in result.diagnostics if d.code == "JAX002"]


def test_the_callable_form_is_not_a_context():
    assert reported("self.assertRaises(ValueError, print, 1)\n" + SITE)


# -- the pattern matcher --------------------------------------------------------------------

MESSAGE = (
    "use_abstract_mesh cannot change the size of the mesh. Got new mesh: AbstractMesh('a': 4, 'b': 1, "
    "axis_types=(Auto, Auto)) with size=4 and prev mesh: AbstractMesh('x': 2, axis_types=(Explicit,), "
    "device_kind=cpu, num_cores=None, platform=cpu) with size=2"
)
PATTERNS = [
    r"use_abstract_mesh cannot change the size.*",
    r"size=4",
    r"size=8",
    r"^use_abstract",
    r"^cannot",
    r"with size=2$",
    r"with size=3$",
    r"(?i)USE_ABSTRACT",
    r"USE_ABSTRACT",
    r"Mismatch details \(2 found\)",
    r"a{3,5}",
    r"[a-z]+_[a-z]+",
    r"\d+",
    r"(a|b)+c",
    r"x'\)",
    r"size=[0-9]{2}",
    r"Got (new|old) mesh",
    r"Got (old|older) mesh",
    r"[^a-z ]{5}",
    r"mesh\. Got",
    r"mesh\.Got",
    r"$",
    r"^$",
    r"",
    r"x{40}",
    r"e{0,2}s{1}h",
    r"[\w']+: \d",
    r"(?i)ABSTRACTMESH\('X'",
    r"\AAbstract",
    r"cpu\Z",
    r"(?:new|prev) mesh: \w+\(",
    r"[^\W\d]+=None",
    r"\s{2}",
    r"\bsize\b",
    r"(?s).*prev",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_without_holes_the_matcher_agrees_with_re(pattern):
    assert may_search(pattern, MESSAGE.replace("{", "{{").replace("}", "}}")) == (
        re.search(pattern, MESSAGE) is not None
    )


def test_literal_pieces_agree_with_re():
    rng = random.Random(15)
    for _ in range(300):
        start = rng.randrange(len(MESSAGE))
        piece = MESSAGE[start : start + rng.randrange(1, 30)] + rng.choice(
            ["", "x", "Q", ")"]
        )
        assert may_search(re.escape(piece), MESSAGE) == (piece in MESSAGE), piece


@pytest.mark.parametrize(
    "pattern,possible",
    [
        (r"size=8", True),
        (r"'data': 8", True),
        (r"prev mesh: AbstractMesh\('x': 2, axis_types=\(Explicit,\)", True),
        (r"^use.*size=[0-9]+$", True),
        (r"size=\d+ and prev", True),
        (r"size=\d+ or prev", False),
        (r"^Got new", False),
        (r"Got context mesh", False),
        (r"and prev mesh: None", False),
        (r"new mesh: \w+ with", False),
        (r"Mismatch details", False),
    ],
)
def test_holes_stand_for_any_mesh_or_size(pattern, possible):
    assert may_search(pattern, JAX002_TEMPLATE) is possible


def test_a_pattern_python_rejects_is_unmodelled():
    with pytest.raises(Unmodelled):
        may_search("(", JAX002_TEMPLATE)


def test_every_rule_states_the_errors_it_reports():
    """A rule whose old code raises names its errors; a deprecation may name none (it warns)."""
    for rule in RULES.values():
        assert rule.raises or rule.raises_since is None, rule.code
        for template in rule.raises:
            assert may_search(re.escape(template.split("{")[0]), template)


def test_an_expected_error_is_dropped_before_its_message_is_made(monkeypatch):
    """JAX002 asks first, so a test of the error costs no message (nor, unfixed, a LibCST parse)."""
    from jaxfix.check.engine import check_source
    from jaxfix.codemods.base import Rule
    from jaxfix.settings.options import Options

    rule = RULES["JAX002"]
    reported: list[str] = []
    report = rule.report

    def spy(self, node, message, **kwargs):
        reported.append(message)
        report(self, node, message, **kwargs)

    monkeypatch.setattr(rule, "report", spy)
    body = "with self.assertRaisesRegex(ValueError, PATTERN):\n    with use_abstract_mesh(INNER):\n        pass\n"
    source = HEADER + "".join(f"            {line}\n" for line in body.splitlines())
    options = Options(select=("JAX002",), unsafe_fixes=True)
    assert check_source(source.encode(), options) == (None, ())
    assert reported == []
    monkeypatch.setattr(Rule, "expected", lambda self, node: False)
    check_source(source.encode(), options)
    assert len(reported) == 1  # the same site, reported when not a test of it
