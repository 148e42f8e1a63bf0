"""Small rules with known fixes, registered only inside the tests that ask for them.

They give the output-format and changed-lines tests cases the real rules do not make on
purpose: an import added at the top, a fix that changes the number of lines, fixes that need a
second pass, an unsafe fix.
"""

from __future__ import annotations

import ast
import os
import signal

import libcst as cst
import pytest

from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Fix, Safety

_DOC = """
## What it does
A test rule.
## Why is this bad?
It is not.
## Example
## Use instead
## Fix safety
## References
"""


class OldApi(Rule):
    __doc__ = _DOC
    code = "JAX901"
    name = "old-api"
    summary = "old_api() is now lib.new_api()"
    fixes = {Safety.SAFE: "rewrite the call"}
    tokens = ((b"old_api",),)

    def visit_Call(self, node: ast.Call) -> None:
        if _named(node.func, "old_api"):
            fix = Fix(
                "call new_api",
                ((node.func, lambda _: cst.Name("new_api")),),
                imports=(("lib", "new_api"),),
            )
            self.report(node, "old_api() was removed: call new_api()", fix=fix)


class Spread(Rule):
    """Replaces the whole call, so nested calls overlap and take one pass each."""

    __doc__ = _DOC
    code = "JAX902"
    name = "spread"
    summary = "spread(x) is written over three lines now"
    fixes = {Safety.SAFE: "rewrite the call"}
    tokens = ((rb"spread\(",),)

    def visit_Call(self, node: ast.Call) -> None:
        if _named(node.func, "spread") and len(node.args) + len(node.keywords) == 1:
            self.report(
                node,
                "spread() takes its argument on a line of its own",
                fix=Fix("spread it out", ((node, _spread_out),)),
            )


class Risky(Rule):
    __doc__ = _DOC
    code = "JAX903"
    name = "risky"
    summary = "risky() may be replaced by careful(), unsafely"
    fixes = {Safety.UNSAFE: "rewrite the call"}
    tokens = ((b"risky",),)

    def visit_Call(self, node: ast.Call) -> None:
        if _named(node.func, "risky"):
            fix = Fix(
                "call careful",
                ((node.func, lambda _: cst.Name("careful")),),
                safety=Safety.UNSAFE,
            )
            self.report(node, "risky() is risky", fix=fix)


def _named(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Name) and func.id == name


def _spread_out(call: cst.CSTNode) -> cst.CSTNode:
    """`spread(x)` as `spread_out(\n    x,\n)`, the argument as the user wrote it."""
    assert isinstance(call, cst.Call)
    template = cst.parse_expression("spread_out(\n    ARG,\n)")
    assert isinstance(template, cst.Call)
    return template.with_changes(
        args=[template.args[0].with_changes(value=call.args[0].value)]
    )


TOY_RULES = (OldApi, Spread, Risky)


@pytest.fixture
def toy_rules(monkeypatch: pytest.MonkeyPatch) -> tuple[type[Rule], ...]:
    """Register the toy rules for one test (run with `--select JAX9` to use only them)."""
    for rule in TOY_RULES:
        monkeypatch.setitem(RULES, rule.code, rule)
    return TOY_RULES


class Crashing(Rule):
    """A rule with a bug: raises on `crash_here()`, to show a crash in a rule is one message."""

    __doc__ = _DOC
    code = "JAX904"
    name = "crashing"
    summary = "crash_here() crashes this rule"
    fixes = {}
    tokens = ((b"crash_here",),)

    def visit_Call(self, node: ast.Call) -> None:
        if _named(node.func, "crash_here"):
            raise RuntimeError("the test rule crashed")


class Dying(Rule):
    """Kills the process it runs in on `die_here()`: what a crash inside LibCST or the memory
    killer does to a worker."""

    __doc__ = _DOC
    code = "JAX905"
    name = "dying"
    summary = "die_here() kills the process checking it"
    fixes = {}
    tokens = ((b"die_here",),)

    def visit_Call(self, node: ast.Call) -> None:
        if _named(node.func, "die_here"):
            os.kill(os.getpid(), signal.SIGKILL)
