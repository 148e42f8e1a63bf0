"""Every fixture is a spec: jaxfix's output equals `.fixed.py`, is stable, and reports what
the header expects; must-not-change cases stay byte-identical."""

from __future__ import annotations

import pytest

from fixture_cases import KEYS, REQUIRED, all_cases
from helpers import options_from_args, run_engine
from jax_errors import JAX_ERRORS
from jaxfix.codemods import RULES
from jaxfix.engine import candidate_rules

CASES = all_cases()
POSITIVE = [c for c in CASES if c.fixed is not None]


def test_there_are_fixtures_for_every_rule():
    """A positive fixture for each rule (`.fixed.py` for a rule that fixes; a case it reports on,
    unchanged, for a rule that only reports) and a must-not-change one."""
    assert RULES, "no rule is registered"
    for code, rule in RULES.items():
        if rule.fixes:
            assert any(c.code == code and c.fixed for c in CASES), f"{code} has no positive fixture"
        else:
            assert not any(c.code == code and c.fixed for c in CASES), f"{code} only reports: a .fixed.py cannot be its output"
            assert any(c.code == code and code in c.expected_codes for c in CASES), f"{code} has no fixture it reports on"
        quiet = [c for c in CASES if c.code == code and not c.fixed and (rule.fixes or code not in c.expected_codes)]
        assert quiet, f"{code} has no must-not-change fixture"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_header_is_complete(case):
    keys = set(case.header)
    assert REQUIRED <= keys, f"missing header keys: {sorted(REQUIRED - keys)}"
    assert keys <= KEYS, f"unknown header keys: {sorted(keys - KEYS)}"
    assert set(case.expected_codes) <= set(RULES), "expect names an unknown rule"
    if case.run_under:
        assert case.header.get("raises") in {*JAX_ERRORS, "none"}, "a case that runs needs raises: <key> or none"
        if case.fixed is not None or case.header["raises"] == "none":
            assert case.header.get("result"), "a case that runs to completion needs result:"
    else:
        assert case.header["run-under"].startswith("none:"), "run-under: none needs ': <why it cannot run>'"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_output_and_diagnostics(case, request):
    result = run_engine(case.before.read_bytes(), case.cli_args, path=str(case.before))
    assert result.error is None, result.error
    assert [d.code for d in result.diagnostics] == case.expected_codes
    if case.fixed is None:
        assert result.fixed is None, "a must-not-change fixture was changed"
        return
    assert result.fixed is not None, "jaxfix did not change a positive fixture"
    if request.config.getoption("--update-fixtures"):
        case.fixed.write_bytes(result.fixed)
    assert result.fixed.decode() == case.fixed.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", POSITIVE, ids=lambda c: c.id)
def test_fixed_file_is_left_alone(case):
    result = run_engine(case.fixed.read_bytes(), case.cli_args, path=str(case.fixed))
    assert result.error is None, result.error
    assert result.fixed is None, "jaxfix changes its own output again (not idempotent)"
    assert all(not d.applied for d in result.diagnostics)


@pytest.mark.parametrize("case", [c for c in CASES if c.expected_codes], ids=lambda c: c.id)
def test_prefilter_never_skips_a_flagged_case(case):
    candidates = {rule.code for rule in candidate_rules(case.before.read_bytes(), options_from_args(case.cli_args))}
    assert set(case.expected_codes) <= candidates
