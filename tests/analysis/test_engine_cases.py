"""The engine's capability cases (fixtures/engine/): each positive tree raises under real JAX
and its hand-written fixed tree runs, each must-not-change tree runs, on the tiers it names;
and what jaxfix gives on each today is exactly the `today` column of fixtures/engine/EXPECT (a
ratchet: an engine change that makes a case better or worse fails here until the table says so).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.test_real_jax import _ENV, JAX_VERSIONS, _jax_version, interpreters
from engine_cases import (
    OUTCOMES,
    TARGETS,
    all_engine_cases,
    expected_table,
    jaxfix_on,
    markdown_table,
    materialize,
    outcome,
)
from fixture_cases import ROOT
from jax_errors import JAX_ERRORS
from jax_tiers import jax_pythons
from jaxfix.codemods import RULES

CASES = all_engine_cases()
BY_NAME = {case.name: case for case in CASES}
TABLE = expected_table()
HEADER_KEYS = {
    "case",
    "rule",
    "sibling-of",
    "target-jax",
    "options",
    "expect",
    "run-under",
    "raises",
    "result",
    "needs",
}
# The libraries a case may need (`needs:`), all installed by the `idioms` extra.
LIBRARIES = {"flax", "chex", "equinox"}


def test_the_table_lists_every_case_once():
    assert len(CASES) >= 10
    assert sorted(TABLE) == sorted(BY_NAME)
    for name, line in TABLE.items():
        assert line.rule == BY_NAME[name].rule, name
        assert line.today in OUTCOMES, f"{name}: unknown outcome {line.today!r}"
        if line.today != BY_NAME[name].target:
            assert line.why, f"{name}: say why jaxfix gives {line.today} today"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_header_says_what_the_case_is(case):
    header = case.header
    assert {"case", "rule", "target-jax", "expect", "run-under", "raises"} <= set(
        header
    )
    assert set(header) <= HEADER_KEYS, sorted(set(header) - HEADER_KEYS)
    assert case.rule in RULES
    assert case.target in TARGETS
    assert set(case.run_under) <= set(JAX_VERSIONS) and case.run_under
    assert header["raises"] in {*JAX_ERRORS, "none"}
    if case.target == "unchanged":
        assert header["expect"] == "none" and header["raises"] == "none"
        assert header.get("result"), "a case that runs to completion needs result:"
    else:
        assert header["expect"] == case.rule and header["raises"] != "none"
    if case.fixed:
        assert header.get("result"), "the fixed tree runs to completion: result:"
    assert set(case.needs) <= LIBRARIES, sorted(set(case.needs) - LIBRARIES)
    if "sibling-of" in header:
        sibling = BY_NAME[header["sibling-of"]]
        assert case.target == "unchanged" and sibling.target != "unchanged"
        assert sibling.rule == case.rule


def test_every_positive_case_has_a_must_not_change_sibling():
    siblings = {c.header["sibling-of"] for c in CASES if "sibling-of" in c.header}
    positive = {c.name for c in CASES if c.target != "unchanged"}
    assert positive <= siblings, sorted(positive - siblings)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_today_is_what_the_table_says(case):
    assert outcome(case) == TABLE[case.name].today, (
        "jaxfix's result changed: update fixtures/engine/EXPECT and docs/engine-cases.md"
        " (python tests/engine_cases.py) if the change is right"
    )


@pytest.mark.parametrize("case", [c for c in CASES if c.fixed], ids=lambda c: c.name)
def test_the_fixed_tree_is_left_alone(case, tmp_path):
    """The fixed tree is a must-not-change tree too, today and for a correct engine."""
    materialize(case, tmp_path / "fixed", fixed=True)
    changed, diagnostics = jaxfix_on(case, tmp_path / "fixed")
    assert not changed
    assert case.rule not in {code for _, code in diagnostics}


def test_docs_show_the_table():
    page = (ROOT / "docs" / "engine-cases.md").read_text(encoding="utf-8")
    assert markdown_table() in page


def _with_libraries(version: str) -> str | None:
    """An interpreter with jax `version` that imports every library cases may need."""
    probe = f"import {', '.join(sorted(LIBRARIES))}"
    for python in (sys.executable, *jax_pythons()):
        if _jax_version(python) != version:
            continue
        done = subprocess.run([python, "-c", probe], capture_output=True, env=_ENV)
        if done.returncode == 0:
            return python
    return None


def _runs_under(version: str, where: str, libraries: bool = False) -> dict[str, dict]:
    """Every tree (as it is, and fixed) that names `version`, in one JAX process: those
    needing no library besides JAX, or (`libraries`) those that need one."""
    listing, trees = [], Path(where) / ("libraries" if libraries else "jax")
    python = _with_libraries(version) if libraries else interpreters()[version]
    assert python is not None
    for case in CASES:
        if version not in case.run_under or bool(case.needs) != libraries:
            continue
        for fixed in (False, True) if case.fixed else (False,):
            tree = trees / version / case.name / ("fixed" if fixed else "before")
            entry = materialize(case, tree, fixed)
            listing.append(f"{entry}\t{tree}")
    script = trees / f"{version}.txt"
    trees.mkdir(parents=True, exist_ok=True)
    script.write_text("\n".join(listing), encoding="utf-8")
    done = subprocess.run(
        [python, str(ROOT / "tests" / "jax_runner.py"), str(script)],
        check=False,
        capture_output=True,
        text=True,
        env=_ENV,
        timeout=600,
    )
    assert done.returncode == 0, f"the JAX runner failed:\n{done.stderr[-3000:]}"
    found = json.loads(done.stdout)
    return {
        os.path.relpath(path, trees / version): result for path, result in found.items()
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    where = tmp_path_factory.mktemp("engine-cases")

    def under(version: str, libraries: bool = False) -> dict[str, dict]:
        if version not in interpreters():
            pytest.skip(f"LOUD SKIP: no interpreter with jax {version}")
        if libraries and _with_libraries(version) is None:
            pytest.skip(
                f"LOUD SKIP: no interpreter with jax {version} and"
                f" {', '.join(sorted(LIBRARIES))}: pip install '.[idioms]' there"
                " (or name one in JAXFIX_JAX_PYTHONS)"
            )
        return _runs_under(version, str(where), libraries)

    return under


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_cases_under_real_jax(version, runs):
    """Before raises the rule's error (or runs, for a must-not-change tree); fixed runs and
    prints the result line."""
    _check_runs(version, runs(version), libraries=False)


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_cases_needing_libraries_under_real_jax(version, runs):
    """The same for the cases whose programs use flax, chex or equinox (`needs:`), run by an
    interpreter that has them."""
    assert any(case.needs for case in CASES)
    _check_runs(version, runs(version, libraries=True), libraries=True)


def _check_runs(version: str, found: dict[str, dict], libraries: bool) -> None:
    failures = []
    for case in CASES:
        if version not in case.run_under or bool(case.needs) != libraries:
            continue
        entry = case.entry.relative_to(case.tree)
        before = found[str(Path(case.name) / "before" / entry)]
        raises = case.header["raises"]
        if raises == "none":
            if not before["ok"] or before["last_line"] != case.header["result"]:
                failures.append(f"{case.name}: should run, got {before}")
        elif before["ok"] or JAX_ERRORS[raises] not in before["error"]:
            failures.append(f"{case.name}: should raise {raises}, got {before}")
        if case.fixed:
            fixed = found[str(Path(case.name) / "fixed" / entry)]
            if not fixed["ok"] or fixed["last_line"] != case.header["result"]:
                failures.append(f"{case.name} fixed: should run, got {fixed}")
    assert not failures, "\n".join(failures)
