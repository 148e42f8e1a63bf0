"""The mutation corpus: every fixture, respelled and reformatted without changing what it does
(tests/fixture_mutations.py), must get the same diagnostics, and a fix that still parses and is
stable; for a sample, the mutated fix must still run under real JAX and print the same result.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import libcst as cst
import pytest

from fixture_cases import Case, all_cases
from fixture_mutations import MUTATIONS
from helpers import run_engine, shared_engine_run
from jax_errors import JAX_ERRORS

CASES = [
    c for c in all_cases() if c.before.suffix == ".py"
]  # the mutations edit Python source text
# Two chains, alternating over the fixtures: running both on every fixture would double the time.
CHAINS = (
    (
        "rename_variables",
        "reorder_statements",
        "attributes_to_from_imports",
        "alias_jax_import",
        "comments_inside_calls",
        "comments_between_statements",
    ),
    (
        "rename_variables",
        "reorder_statements",
        "from_imports_to_attributes",
        "comments_inside_calls",
        "comments_between_statements",
    ),
)
SAMPLE_PER_RULE = 3


def _chain(case: Case) -> tuple[str, ...]:
    return CHAINS[zlib.crc32(case.id.encode()) % len(CHAINS)]


@functools.cache
def _mutate(source: str, names: tuple[str, ...]) -> str:
    """`names` applied in order; each mutant, and each first steps a chain shares with the
    other, made once per session (this module and tests/check/test_prefilter.py ask for them)."""
    if not names:
        return source
    return MUTATIONS[names[-1]](_mutate(source, names[:-1]))


def _problems(case: Case, mutant: str) -> list[str]:
    """What is wrong with jaxfix's result on a mutated fixture (nothing, if the rule held up)."""
    result = shared_engine_run(mutant.encode(), tuple(case.cli_args), str(case.before))
    if result.error:
        return [f"error: {result.error}"]
    problems = []
    codes = sorted(d.code for d in result.diagnostics)
    if codes != sorted(case.expected_codes):
        problems.append(f"reported {codes}, expected {sorted(case.expected_codes)}")
    if case.fixed is None:
        if result.fixed is not None:
            problems.append("a must-not-change fixture was changed")
        return problems
    if result.fixed is None:
        return [*problems, "the fix no longer applies"]
    try:
        cst.parse_module(result.fixed)
        ast.parse(result.fixed)
    except (SyntaxError, cst.ParserSyntaxError) as error:
        return [*problems, f"the output does not parse: {error}"]
    again = run_engine(result.fixed, case.cli_args, path=str(case.before))
    if again.error or again.fixed is not None:
        problems.append(
            f"a second run {'fails: ' + again.error if again.error else 'changes the output again'}"
        )
    return problems


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rule_holds_up_on_mutated_fixture(case: Case):
    source = case.before.read_text(encoding="utf-8")
    chain = _chain(case)
    mutant = _mutate(source, chain)
    assert mutant != source
    problems = _problems(case, mutant)
    if problems:
        # Name the culprits: which single mutations reproduce a problem.
        culprits = {
            name: found
            for name in chain
            if (found := _problems(case, MUTATIONS[name](source)))
        }
        pytest.fail(
            f"after {' + '.join(chain)}: {problems}; single mutations that fail: {culprits or 'none'}"
        )


def _jax_version() -> str | None:
    try:
        return importlib.metadata.version("jax")
    except importlib.metadata.PackageNotFoundError:
        return None


def _sample() -> list[Case]:
    """A few positive, runnable fixtures per rule, picked deterministically but not by name order."""
    version = _jax_version()
    # a project fixture's entry imports its tree, which the mutant, written alone, lacks
    runnable = [
        c
        for c in CASES
        if c.fixed is not None and version in c.run_under and c.project is None
    ]
    picked = []
    for code in sorted({c.code for c in runnable}):
        ranked = sorted(
            (c for c in runnable if c.code == code),
            key=lambda c: zlib.crc32(c.id.encode()),
        )
        picked += ranked[:SAMPLE_PER_RULE]
    return picked


SAMPLE = _sample()


def _real_jax_results(directory: str) -> dict[str, dict]:
    """Mutate each sampled fixture, fix it, and run before and fixed in one JAX process."""
    scripts = []
    for case in SAMPLE:
        mutant = _mutate(case.before.read_text(encoding="utf-8"), _chain(case))
        fixed = shared_engine_run(
            mutant.encode(), tuple(case.cli_args), str(case.before)
        ).fixed
        for kind, text in (
            ("before", mutant),
            (
                "fixed",
                fixed.decode()
                if fixed
                else "raise SystemExit('jaxfix did not fix the mutant')",
            ),
        ):
            path = Path(directory) / f"{case.code}_{case.name}.{kind}.py"
            path.write_text(text, encoding="utf-8")
            scripts.append(str(path))
    listing = Path(directory) / "scripts.txt"
    listing.write_text("\n".join(scripts), encoding="utf-8")
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
        "JAX_PLATFORMS": "cpu",
    }
    runner = Path(__file__).parents[1] / "jax_runner.py"
    done = subprocess.run(
        [sys.executable, str(runner), str(listing)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert done.returncode == 0, f"the JAX runner failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def real_jax_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    return _real_jax_results(str(tmp_path_factory.mktemp("mutants")))


@pytest.mark.jax
@pytest.mark.parametrize("case", SAMPLE, ids=lambda c: c.id)
def test_mutated_fix_runs_under_real_jax(case: Case, real_jax_results: dict[str, dict]):
    results = {Path(path).name: outcome for path, outcome in real_jax_results.items()}
    before = results[f"{case.code}_{case.name}.before.py"]
    fixed = results[f"{case.code}_{case.name}.fixed.py"]
    raises = case.header["raises"]
    if raises == "none":
        assert before["ok"], f"the mutated fixture no longer runs: {before['error']}"
    else:
        assert not before["ok"] and JAX_ERRORS[raises] in before["error"], (
            f"the mutant does not raise {raises}: {before['error']}"
        )
    assert fixed["ok"], f"the fixed mutant failed: {fixed['error']}"
    assert fixed["last_line"] == case.header["result"]
