"""The prefilter never changes a result: running every selected rule on every file (fixtures,
mutated fixtures, generated programs) gives what skipping the files and rules whose tokens are
missing gives. And a run that has nothing to
parse (no candidates, or all of them cached) never imports libcst."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import jaxfix.runner
from fixture_cases import all_cases
from helpers import options_from_args, run_engine
from jax_program_strategy import Program, programs
from jaxfix import prefilter
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.engine import process_source
from jaxfix.options import Options
from jaxfix.runner import run_files
from test_mutations import _chain, _mutate

CASES = all_cases()


def disable_prefilter(patch: pytest.MonkeyPatch) -> None:
    """Every selected rule looks at every file: in the engine and in the runner's parent process."""
    patch.setattr(Rule, "may_apply", classmethod(lambda cls, source: True))
    patch.setattr(jaxfix.runner, "is_candidate", lambda source, rules: True)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_fixture_results_do_not_depend_on_the_prefilter(case, monkeypatch):
    files = [case.before] + ([case.fixed] if case.fixed else [])
    options = options_from_args(case.cli_args)
    filtered = run_files(files, options, write=False, jobs=1)
    disable_prefilter(monkeypatch)
    assert run_files(files, options, write=False, jobs=1) == filtered


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_mutated_fixture_results_do_not_depend_on_the_prefilter(case, monkeypatch):
    """The fixture mutation corpus (renamed, re-imported, commented, reordered spellings)."""
    mutant = _mutate(case.before.read_text(encoding="utf-8"), _chain(case))
    filtered = run_engine(mutant, case.cli_args, path=str(case.before))
    disable_prefilter(monkeypatch)
    assert run_engine(mutant, case.cli_args, path=str(case.before)) == filtered


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_generated_program_results_do_not_depend_on_the_prefilter(program: Program):
    source = program.source.encode()
    for options in (Options(), Options(unsafe_fixes=True)):
        filtered = process_source(Path("fuzzed.py"), source, options)
        with pytest.MonkeyPatch.context() as patch:
            disable_prefilter(patch)
            assert process_source(Path("fuzzed.py"), source, options) == filtered


def test_tokens_read_without_importing_the_rules_match_the_registry():
    static = prefilter._read_all_statically()
    assert static is not None, "a rule's `code` or `tokens` is not a plain literal: every run now imports libcst"
    assert static == prefilter._from_registry(RULES)


_RUN_CLI = textwrap.dedent("""
    import sys
    from jaxfix.cli.main import main
    sys.argv = ["jaxfix", *sys.argv[1:]]
    try:
        main()
    except SystemExit as exit:
        print("exit", exit.code, "libcst imported:", "libcst" in sys.modules)
""")


def _cli_in_fresh_process(*args: str) -> str:
    done = subprocess.run([sys.executable, "-c", _RUN_CLI, *args], capture_output=True, text=True, timeout=300)
    return done.stdout.strip().splitlines()[-1]


def test_a_run_with_nothing_to_parse_never_imports_libcst(tmp_path):
    (tmp_path / "plain.py").write_text("import jax\n\nprint(jax.numpy.ones(3))\n")
    assert _cli_in_fresh_process("--check", "-q", str(tmp_path)) == "exit 0 libcst imported: False"


def test_a_warm_cache_run_never_imports_libcst(tmp_path):
    case = next(c for c in CASES if c.fixed is not None)
    (tmp_path / "case.py").write_bytes(case.before.read_bytes())
    args = ("--check", "-q", *case.cli_args, str(tmp_path))
    assert _cli_in_fresh_process(*args) == "exit 1 libcst imported: True"
    assert _cli_in_fresh_process(*args) == "exit 1 libcst imported: False"
