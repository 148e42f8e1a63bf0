"""scripts/compare_runs.py, the rule-level differential of two checkouts: it reads jaxfix's
diffs back into the fixed text, classes a change by what the fixture says, and a whole run
tells a checkout that loses a fix from one that gains it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from fixture_cases import ROOT, all_cases
from helpers import run_engine
from jaxfix.write.diffs import unified_diff_text


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "compare_runs", ROOT / "scripts" / "compare_runs.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["compare_runs"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


compare_runs = _load_script()
POSITIVE = next(
    c
    for c in all_cases()
    if c.fixed and c.project is None and c.before.suffix == ".py"
    if "--unsafe-fixes" in c.cli_args
)


def test_a_diff_of_jaxfix_gives_back_the_fixed_text():
    result = run_engine(POSITIVE.before.read_bytes(), POSITIVE.cli_args)
    diff = unified_diff_text("case.py", result.source, result.fixed)
    assert compare_runs.patched(result.source, diff) == result.fixed.decode()
    assert compare_runs.patched(b"other\n" + result.source, diff) is None


def test_line_endings_and_a_last_line_without_one_survive():
    old, new = b"a = 1\r\nb = 2\r\nc = 3", b"a = 1\r\nb = 20\r\nc = 3\r\nd = 4"
    diff = unified_diff_text("case.py", old, new)
    assert "No newline" in diff
    assert compare_runs.patched(old, diff) == new.decode()
    # a removed line that looks like a file's header is a line of the hunk
    old, new = b"x = 1\n-- y\n--- z\n", b"x = 1\n"
    assert compare_runs.patched(old, unified_diff_text("c.py", old, new)) == "x = 1\n"


def _outcome(*diagnostics, diff=None):
    return compare_runs.Outcome(
        {"case.py": compare_runs.FileOutcome(tuple(diagnostics), diff)}
        if diagnostics or diff
        else {}
    )


def _input(raises, codes=(), fixed=None):
    spec = compare_runs.Spec(
        fixed={"case.py": fixed} if fixed else {},
        codes={"case.py": codes},
        raises=raises,
        originals={"case.py": b"x = 1\n"},
    )
    return compare_runs.Input("JAX001/case", "JAX001", spec, "case.py")


REPORT = compare_runs.Diagnostic("JAX001", "1:1", "1:6", "needs platforms", "", "[]")
FIX = unified_diff_text("case.py", b"x = 1\n", b"x = 2\n")


def test_a_change_is_better_or_worse_by_what_the_fixture_says():
    nothing, reported = _outcome(), _outcome(REPORT)
    fixed = _outcome(REPORT, diff=FIX)
    positive = _input(True, ("JAX001",), b"x = 2\n")
    verdict = compare_runs.compare
    assert verdict(positive, fixed, fixed).verdict == "same"
    assert verdict(positive, nothing, fixed).verdict == "better"
    assert verdict(positive, fixed, nothing).verdict == "worse"
    assert verdict(positive, fixed, reported).verdict == "worse"
    # a report on a case that raises, where the fixture lists no code yet: a gain
    assert verdict(_input(True), nothing, reported).verdict == "better"
    # anything new on a must-not-change case is harm
    assert verdict(_input(False), nothing, reported).verdict == "worse"
    # the same report in other words is neither: someone reads it
    reworded = _outcome(
        compare_runs.Diagnostic("JAX001", "1:1", "1:6", "other words", "", "[]")
    )
    row = verdict(_input(True), reported, reworded)
    assert row.verdict == "reworded"
    assert row.details == (
        "~ case.py: JAX001 1:1 needs platforms",
        "           JAX001 1:1 other words",
    )
    # ...but a report at another place is one lost and one gained
    moved = _outcome(compare_runs.Diagnostic("JAX001", "2:1", "2:6", "", "", "[]"))
    assert verdict(_input(True), reported, moved).verdict == "worse"


def _fake_checkout(where: Path) -> Path:
    """A 'jaxfix' whose command line reports nothing on any file."""
    (where / "jaxfix" / "cli").mkdir(parents=True)
    (where / "jaxfix" / "__init__.py").write_text("", encoding="utf-8")
    (where / "jaxfix" / "cli" / "__init__.py").write_text("", encoding="utf-8")
    (where / "jaxfix" / "cli" / "main.py").write_text(
        "import click\n"
        "@click.command(context_settings={'ignore_unknown_options': True})\n"
        "@click.argument('args', nargs=-1, type=click.UNPROCESSED)\n"
        "def cli(args):\n"
        '    click.echo(\'{"files": [], "summary": {"files_scanned": 1}}\')\n',
        encoding="utf-8",
    )
    return where


def test_a_checkout_that_loses_a_fix_is_worse_and_one_that_gains_it_better(
    tmp_path, capsys
):
    fake = str(_fake_checkout(tmp_path / "fake"))
    only = ["--only", POSITIVE.id, "--no-from-log", "--fixtures", str(ROOT)]
    assert compare_runs.main(["--base", str(ROOT), "--current", fake, *only]) == 1
    lost = capsys.readouterr().out
    assert f"{POSITIVE.id}  worse     no longer as its fixture says" in lost
    assert compare_runs.main(["--base", fake, "--current", str(ROOT), *only]) == 0
    gained = capsys.readouterr().out
    assert f"{POSITIVE.id}  better    now as its fixture says" in gained
    assert "1 inputs: 0 same, 1 better, 0 reworded, 0 worse" in gained


def test_a_fixture_changed_since_the_base_is_told_apart(tmp_path):
    found = compare_runs.Input(
        "JAX001/c", "fixtures/JAX001", compare_runs.Spec(), "c.py"
    )
    for tree, fixed in (
        ("base", b"x = 2\n"),
        ("same", b"x = 2\n"),
        ("new", b"x = 3\n"),
    ):
        (tmp_path / tree / "fixtures" / "JAX001").mkdir(parents=True)
        (tmp_path / tree / "fixtures" / "JAX001" / "c.py").write_bytes(b"x = 1\n")
        (tmp_path / tree / "fixtures" / "JAX001" / "c.fixed.py").write_bytes(fixed)
    base = compare_runs._fixture(tmp_path / "base", found)
    assert list(base) == ["fixtures/JAX001/c.fixed.py", "fixtures/JAX001/c.py"]
    assert compare_runs._fixture(tmp_path / "same", found) == base
    assert compare_runs._fixture(tmp_path / "new", found) != base
