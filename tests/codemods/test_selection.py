"""Which rules a run selects, as ruff selects: `--select ALL` every rule; without `--select`,
the rules whose old code raises on the target JAX version (`Rule.raises_since`), so a
deprecation joins the default once the target version removes the spelling."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from helpers import options_from_args, run_engine
from jaxfix.check.engine import selected_rules
from jaxfix.check.registry import selected_rules as selected_tokens
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule

_DOC = "## What it does\nA test rule.\n"


class _Reports(Rule):
    """Reports every call of `old`."""

    __doc__ = _DOC
    name = "reports"
    summary = "old()"
    fixes = {}
    tokens = ((b"old",),)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "old":
            self.report(node, f"{self.code}: old")


class Raises(_Reports):
    __doc__ = _DOC
    code = "JAX961"


class RaisesSince(_Reports):
    __doc__ = _DOC
    code = "JAX962"
    raises_since = "0.7.1"


class Deprecated(_Reports):
    __doc__ = _DOC
    code = "JAX963"
    raises_since = None


@pytest.fixture(autouse=True)
def rules(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for code in list(RULES):
        monkeypatch.delitem(RULES, code)
    for rule in (Raises, RaisesSince, Deprecated):
        monkeypatch.setitem(RULES, rule.code, rule)
    yield


def _selected(*args: str) -> list[str]:
    options = options_from_args(list(args))
    codes = [rule.code for rule in selected_rules(options)]
    assert [rule.code for rule in selected_tokens(options)] == codes
    return codes


@pytest.mark.parametrize(
    "args, codes",
    [
        # The default: what raises on the target version; a deprecation only warns.
        ((), ["JAX961", "JAX962"]),
        (("--target-version", "0.12.0"), ["JAX961", "JAX962"]),
        (("--target-version", "0.7.1"), ["JAX961", "JAX962"]),
        (("--target-version", "0.7.0"), ["JAX961"]),
        (("--target-version", "0.6.2"), ["JAX961"]),
        # ALL (any case) is every rule, whatever the target; ignore still wins.
        (("--select", "ALL"), ["JAX961", "JAX962", "JAX963"]),
        (
            ("--select", "all", "--target-version", "0.6"),
            ["JAX961", "JAX962", "JAX963"],
        ),
        (("--select", "ALL", "--ignore", "JAX962"), ["JAX961", "JAX963"]),
        # A code or prefix selects what it names, deprecations and not-yet-raising ones too.
        (("--select", "JAX963"), ["JAX963"]),
        (
            ("--select", "JAX96", "--target-version", "0.6"),
            ["JAX961", "JAX962", "JAX963"],
        ),
        (("--ignore", "JAX961"), ["JAX962"]),
    ],
)
def test_the_selection(args, codes):
    assert _selected(*args) == codes


def test_a_deprecation_is_reported_only_when_selected():
    source = "old()\n"
    assert [d.code for d in run_engine(source).diagnostics] == ["JAX961", "JAX962"]
    found = run_engine(source, ["--select", "ALL"]).diagnostics
    assert [d.code for d in found] == ["JAX961", "JAX962", "JAX963"]


def test_a_raises_since_that_is_no_version_is_refused_when_defined():
    with pytest.raises(TypeError, match=r"Broken.raises_since: not a JAX version"):

        class Broken(_Reports):
            code = "JAX969"
            raises_since = "soon"
