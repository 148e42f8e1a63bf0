"""Every fixture is a spec: jaxfix's output equals `.fixed.py`, is stable, and reports what
the header expects; must-not-change cases stay byte-identical."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixture_cases import KEYS, REQUIRED, all_cases, rule_fixtures
from helpers import options_from_args, run_engine, shared_engine_run
from jax_errors import JAX_ERRORS
from jaxfix.check.engine import candidate_rules

CASES = all_cases()
RULES = {
    found.rule.code: found.rule for found in rule_fixtures()
}  # the suite's rules too
POSITIVE = [c for c in CASES if c.fixed is not None]


def missing_fixtures(code, rule, cases):
    """What the fixtures of a rule lack: a positive one (`.fixed.py` for a rule that fixes; a
    case it reports on, unchanged, for a rule that only reports) and a must-not-change one."""
    own = [c for c in cases if c.code == code]
    missing = []
    if rule.fixes and not any(c.fixed for c in own):
        missing.append(f"{code} has no positive fixture")
    if not rule.fixes and any(c.fixed for c in own):
        missing.append(f"{code} only reports: a .fixed.py cannot be its output")
    if not rule.fixes and not any(code in c.expected_codes for c in own):
        missing.append(f"{code} has no fixture it reports on")
    if not any(
        not c.fixed and (rule.fixes or code not in c.expected_codes) for c in own
    ):
        missing.append(f"{code} has no must-not-change fixture")
    return missing


def test_there_are_fixtures_for_every_rule():
    assert {"JAX001", "TST904"} <= set(RULES), (
        "jaxfix's and the suite's rules are found"
    )
    for code, rule in RULES.items():
        assert not missing_fixtures(code, rule, CASES)


def test_a_rule_from_elsewhere_has_its_fixtures_beside_it():
    (example,) = [f for f in rule_fixtures() if f.rule.code == "TST904"]
    assert example.module is not None
    assert example.directory == example.module.parent / "fixtures" / "TST904"
    own = [c for c in CASES if c.code == "TST904"]
    assert own and all(example.directory in c.before.parents for c in own)
    assert all(c.cli_args[:2] == ["--rule-module", str(example.module)] for c in own)


def test_a_report_only_rule_needs_no_fixed_file():
    from fixture_cases import Case
    from rules.tst904_spec_axis_not_in_mesh import SpecAxisNotInMesh as ReportOnly

    def case(name, expect, fixed=None):
        return Case("TST904", name, Path(f"{name}.py"), fixed, {"expect": expect})

    reported, quiet = case("reported", "TST904"), case("quiet", "none")
    assert missing_fixtures("TST904", ReportOnly, [reported, quiet]) == []
    assert missing_fixtures("TST904", ReportOnly, [quiet]) == [
        "TST904 has no fixture it reports on"
    ]
    assert missing_fixtures("TST904", ReportOnly, [reported]) == [
        "TST904 has no must-not-change fixture"
    ]
    assert missing_fixtures(
        "TST904", ReportOnly, [case("fixed", "TST904", Path("fixed.fixed.py")), quiet]
    ) == ["TST904 only reports: a .fixed.py cannot be its output"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_header_is_complete(case):
    keys = set(case.header)
    assert REQUIRED <= keys, f"missing header keys: {sorted(REQUIRED - keys)}"
    assert keys <= KEYS, f"unknown header keys: {sorted(keys - KEYS)}"
    assert set(case.expected_codes) <= set(RULES), "expect names an unknown rule"
    if case.run_under:
        assert case.header.get("raises") in {*JAX_ERRORS, "none"}, (
            "a case that runs needs raises: <key> or none"
        )
        if case.fixed is not None or case.header["raises"] == "none":
            assert case.header.get("result"), (
                "a case that runs to completion needs result:"
            )
    else:
        assert case.header["run-under"].startswith("none:"), (
            "run-under: none needs ': <why it cannot run>'"
        )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_output_and_diagnostics(case, request):
    result = shared_engine_run(
        case.before.read_bytes(), tuple(case.cli_args), str(case.before)
    )
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


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.expected_codes], ids=lambda c: c.id
)
def test_prefilter_never_skips_a_flagged_case(case):
    candidates = {
        rule.code
        for rule in candidate_rules(
            case.before.read_bytes(), options_from_args(case.cli_args)
        )
    }
    assert set(case.expected_codes) <= candidates
