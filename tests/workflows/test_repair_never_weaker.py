"""Never weaker than static: for each fixture whose before file raises one of the rules' JAX
errors, the error the recorder wrote while the before really ran (the same run that proves
the fixtures, tests/codemods/test_real_jax.py) is handed to the engine as `jaxfix repair`
hands it; wherever static jaxfix fixes the recorded site, that run fixes it too, with the same
edit. The one run per fixture is the real-JAX test's: no process of its own."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest

from codemods.test_real_jax import (
    CASES,
    JAX_VERSIONS,
    evidence_under,
    interpreters,
    results_under,
)
from helpers import options_from_args, shared_engine_run
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.check.value_sites import with_value_sites
from jaxfix.codemods import RULES
from jaxfix.evidence.message_templates import exceptions
from jaxfix.evidence.records import read_evidence
from jaxfix.ground.diagnostics import Diagnostic

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _statement_lines(source: bytes, line: int) -> range:
    """The lines of the innermost statement holding `line`, a block's header alone (a frame
    names one line of a statement written over several; the rule may report another)."""
    found = range(line, line + 1)
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        last = (
            body[0].lineno - 1 if isinstance(body, list) and body else node.end_lineno
        )
        lines = range(node.lineno, (last or node.lineno) + 1)
        if line in lines and (len(found) == 1 or len(lines) < len(found)):
            found = lines
    return found


def _at(
    diagnostics: tuple[Diagnostic, ...], code: str, lines: range
) -> list[tuple[int, int]]:
    """Where the fixes of `code` start within `lines`."""
    return [
        (d.start.line, d.start.column)
        for d in diagnostics
        if d.code == code and d.applied and d.start.line in lines
    ]


def _ends_with_its_rules_error(case, result: dict) -> bool:
    """Whether the script ended with the error its header names (`raises: JAX003-context`:
    one of JAX003's), raised as that rule declares its errors (`Rule.error`)."""
    rule = RULES.get(case.header.get("raises", "").split("-")[0])
    error = result["error"] or ""
    return (
        rule is not None
        and bool(rule.raises)
        and any(
            error.startswith(f"{name}: ")
            for name in exceptions(rule.error, rule.raises)
        )
    )


def _on_the_way(repaired: bytes | None, static: bytes | None, case) -> bool:
    """Whether static jaxfix run on repair's output gives static's own: repair made the same
    edit at the recorded site and left sites the run did not reach (a second error the first
    one hid: repair's next round) for static to finish the same way."""
    if repaired is None:
        return False
    again = check_file(Run(options_from_args(case.cli_args)), case.before, repaired)
    return again.fixed == static


def test_repair_fixes_every_recorded_site_static_fixes(record_property):
    started = time.monotonic()
    version = JAX_VERSIONS[0]
    if version not in interpreters():
        pytest.skip(f"LOUD SKIP: no interpreter with jax {version}")
    cases = {
        c.before.resolve(): c
        for c in CASES
        if version in c.run_under and c.fixed is not None
    }
    files = sorted({p.resolve() for p in FIXTURES.rglob("*.py")})
    reading = read_evidence(evidence_under(version), files)
    checked, weaker = [], []
    for path, items in sorted(reading.evidence.items()):
        case = cases.get(path)
        if case is None:
            continue
        source = case.before.read_bytes()
        static = shared_engine_run(source, tuple(case.cli_args), str(case.before))
        run = Run(options_from_args(case.cli_args))
        evidence = with_value_sites({path: items}, run, files)
        repaired = check_file(run, case.before, source, evidence=evidence.get(path, ()))
        for item in items:
            lines = _statement_lines(source, item.line)
            fixed_statically = _at(static.diagnostics, item.code, lines)
            if not fixed_statically:
                continue  # static leaves it: repair may do better, never worse
            checked.append(case.id)
            if not set(fixed_statically) <= set(
                _at(repaired.diagnostics, item.code, lines)
            ):
                weaker.append(
                    f"{case.id}:{item.line} {item.code}: not fixed with the run's evidence"
                )
            elif repaired.fixed != static.fixed and not _on_the_way(
                repaired.fixed, static.fixed, case
            ):
                weaker.append(
                    f"{case.id}:{item.line} {item.code}: another fix than static's"
                )
    # Every positive .py fixture that ends with its rule's error, raised as the rule declares,
    # is recorded: the sites above are all of them (a message missing from a rule's `raises`
    # shows here).
    unrecorded = [
        c.id
        for path, c in cases.items()
        if c.before.suffix == ".py"
        and _ends_with_its_rules_error(c, results_under(version)[str(c.before)])
        and path not in reading.evidence
    ]
    assert unrecorded == [], unrecorded
    seconds = round(time.monotonic() - started, 1)
    record_property("seconds", seconds)
    record_property("checked", len(checked))
    print(f"{len(checked)} recorded sites static fixes, checked in {seconds} s")
    assert len(checked) > 100, checked  # the recorder saw the fixtures' errors
    assert weaker == [], "\n".join(weaker)
