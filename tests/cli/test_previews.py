"""What a new user sees (issue 17): previews explain themselves, info is pipeable, safety is one story."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import jaxfix.cli.progress as progress_module
from fixture_cases import FIXTURES, all_cases
from helpers import shared_engine_run
from jaxfix.cli.diff_view import hunks
from jaxfix.cli.main import cli
from jaxfix.cli.progress import ParseProgress
from jaxfix.cli.render import render_diff
from jaxfix.cli.rule_docs import explain_markdown
from jaxfix.codemods import RULES
from jaxfix.ground.diagnostics import FileResult, Safety
from snippets import CALL, VIOLATION

ANSI = re.compile(r"\x1b\[[0-9;]*m")
UNSAFE_ONLY = (
    FIXTURES / "JAX003" / "eager_bare_spec_input_on_other_mesh_without_unsafe_fixes.py"
)


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(
        cli, ["--no-cache", *args], input=stdin, catch_exceptions=False
    )


def test_diff_says_on_stderr_what_it_left_out_and_why(tmp_path):
    shutil.copy(UNSAFE_ONLY, tmp_path / "pipeline_stages.py")
    result = run(
        "--diff", "--jax-version", "0.10.2", str(tmp_path / "pipeline_stages.py")
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    assert (
        "JAX003" in result.stderr
        and "not in the diff: 1 finding (1 unsafe fix not enabled (--unsafe-fixes))"
        in result.stderr
    )


def test_dry_run_prints_each_diagnostic_above_its_hunk(tmp_path):
    far_apart = VIOLATION + "\n" * 12 + f"again = {CALL}\n"
    (tmp_path / "two.py").write_text(far_apart)
    output = run("--dry-run", "--color", "never", str(tmp_path)).stdout.splitlines()
    headers = [i for i, line in enumerate(output) if line.startswith("@@")]
    findings = [i for i, line in enumerate(output) if ": JAX001 " in line]
    assert len(headers) == len(findings) == 2
    assert findings[0] < headers[0] < findings[1] < headers[1]
    assert "[would fix (safe): add lowering_platforms" in output[findings[0]]


def test_changed_words_are_highlighted_within_the_line():
    old = b"y = top_level_all_gather(x, NamedSharding(mesh_b, P(reduced={'x'})))\n"
    new = old.replace(b"mesh_b", b"mesh_a")
    (hunk,) = hunks(old, new)
    removed, added = hunk.lines
    strong = [(removed.plain[s.start : s.end], str(s.style)) for s in removed.spans]
    assert strong == [("mesh_b", "bold white on red")]
    assert [added.plain[s.start : s.end] for s in added.spans] == ["mesh_a"]
    colored = run(
        "--dry-run", "--color", "always", "-", stdin=VIOLATION.replace(CALL, CALL)
    )
    assert colored.exit_code == 1


@pytest.fixture(scope="module")
def fixture_results():
    """Every shipped case through the engine once, with its own options (the run
    tests/codemods/test_fixtures.py compares with the case's `.fixed.py`)."""
    return [
        (
            case,
            shared_engine_run(
                case.before.read_bytes(), tuple(case.cli_args), str(case.before)
            ),
        )
        for case in all_cases()
    ]


def test_every_shipped_fixture_preview_shows_diagnostics_and_highlighted_diff(
    fixture_results,
):
    changed = [result for _, result in fixture_results if result.fixed is not None]
    assert len(changed) > 50
    for result in changed:
        console = Console(record=True, force_terminal=True, width=100)
        render_diff(console, result)
        plain, colored = (
            console.export_text(clear=False),
            console.export_text(styles=True),
        )
        assert re.search(
            r"^\S+:(?:cell \d+:)?\d+:\d+: JAX\d{3} .*\[would fix \((safe|unsafe)\)",
            plain,
            re.MULTILINE,
        ), plain[:300]
        assert "\x1b[1;37;41m" in colored or "\x1b[1;37;42m" in colored, plain[:300]


def test_summary_counts_every_error_and_says_pending_when_nothing_is_written(tmp_path):
    (tmp_path / "bad.py").write_text(VIOLATION)
    check = run(
        "--check", "--color", "never", str(tmp_path), str(tmp_path / "nonexist.py")
    )
    assert check.exit_code == 2
    assert re.search(r"files in error[\s│]+1", check.stderr)
    assert re.search(r"fixes JAX001 \(pending\)[\s│]+1", check.stderr)
    machine = run("--check", "--format", "json", "--color", "never", str(tmp_path))
    json.loads(machine.stdout)
    assert "jaxfix summary" in machine.stderr
    assert (
        "jaxfix summary"
        not in run("--check", "-q", "--format", "json", str(tmp_path)).stderr
    )


def test_information_goes_to_stdout():
    listing = run("--list-rules")
    assert listing.stderr == "" and listing.stdout.splitlines()[0].startswith(
        "JAX001\tmissing-lowering-platforms\t"
    )
    records = json.loads(run("--list-rules", "--format", "json").stdout)
    assert [r["code"] for r in records] == sorted(RULES)
    for record in records:
        assert set(record) >= {"code", "name", "fix_safety", "summary"}
        assert "tokens" not in record  # the prefilter is internal
    assert run("--list-rules", "--format", "sarif").exit_code == 2


def test_explain_is_the_markdown_when_piped_and_never_wraps_code_on_a_terminal():
    piped = run("--explain", "JAX001")
    assert piped.stdout == explain_markdown(RULES["JAX001"])
    code_lines = [
        line
        for line in re.findall(r"```python\n(.*?)```", piped.stdout, re.DOTALL)[
            0
        ].splitlines()
    ]
    terminal = ANSI.sub("", run("--explain", "JAX001", "--color", "always").stdout)
    for line in code_lines:
        assert line in terminal, line
    assert (
        json.loads(run("--explain", "JAX001", "--format", "json").stdout)["doc"]
        == piped.stdout
    )


def test_each_rules_fix_kinds_are_what_its_fixtures_produce(fixture_results):
    """The declared kinds (`Rule.fixes`, the one safety description) are exactly the kinds made."""
    made: dict[str, set[Safety]] = {code: set() for code in RULES}
    for _, result in fixture_results:
        for d in result.diagnostics:
            if d.fix_safety is not None:
                made[d.code].add(d.fix_safety)
    assert made == {code: set(rule.fixes) for code, rule in RULES.items()}


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_pages_are_generated_from_the_rules(code):
    page = Path(__file__).resolve().parents[2] / "docs" / "rules" / f"{code}.md"
    assert page.read_text(encoding="utf-8") == explain_markdown(RULES[code]), (
        f"{page} drifted from the rule's docs: run `python scripts/generate_docs.py`"
    )


def test_syntax_errors_are_reported_for_files_named_or_with_strict_for_files_found(
    tmp_path,
):
    stdin = run("-", stdin="x = (\n")
    assert (
        stdin.exit_code == 2
        and "-:1:5: error: syntax error: '(' was never closed" in stdin.stderr
    )
    (tmp_path / "pkg").mkdir()
    broken = tmp_path / "pkg" / "broken.py"
    broken.write_text(
        "def f(:\n    pass\n"
    )  # no rule keyword: the prefilter settles it
    named = run("--check", "-q", str(broken))
    assert named.exit_code == 2 and "broken.py:1:7: error: syntax error" in named.stderr
    assert (
        run("--check", "-q", str(tmp_path)).exit_code == 0
    )  # found, not named: only with --strict
    assert run("--check", "-q", "--strict", str(tmp_path)).exit_code == 2
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nstrict = true\n")
    assert run("--check", "-q", str(tmp_path)).exit_code == 2


def test_newer_grammar_than_this_python_is_not_a_syntax_error(tmp_path):
    """Python's parser knows its own version's grammar; LibCST confirms before jaxfix says error."""
    (tmp_path / "generic.py").write_text(
        "type Pair[T] = tuple[T, T]\n\ndef first[T](p: Pair[T]) -> T:\n    return p[0]\n"
    )
    assert run("--check", "-q", "--strict", str(tmp_path / "generic.py")).exit_code == 0


def test_progress_counts_the_bytes_to_parse_not_the_files_settled_cheaply(tmp_path):
    progress = ParseProgress(Console(file=io.StringIO()), workers=1)
    progress.plan(
        [(tmp_path / "big.py", 3_000_000), (tmp_path / "small.py", 1_000_000)]
    )
    progress.done(FileResult(tmp_path / "settled_by_prefilter.py", b""))
    assert progress.line().startswith(
        "jaxfix: parsed 0/2 files, 0.0 of 4.0 MB (0%); now: "
    )
    progress.done(FileResult(tmp_path / "big.py", b""))
    assert (
        "parsed 1/2 files, 3.0 of 4.0 MB (75%); now: " in progress.line()
        and progress.line().endswith("small.py")
    )


def test_progress_on_a_non_terminal_is_a_periodic_line_and_on_a_terminal_a_bar(
    tmp_path, monkeypatch
):
    for index in range(4):
        (tmp_path / f"m{index}.py").write_text(VIOLATION)
    (tmp_path / "plain.py").write_text("x = 1\n")
    monkeypatch.setattr(progress_module, "MIN_BYTES", 0)
    monkeypatch.setattr(progress_module, "INTERVAL", 0.01)
    piped = run("--check", "-j", "1", str(tmp_path))
    assert re.search(
        r"^jaxfix: parsed \d/4 files, .* MB", piped.stderr, re.MULTILINE
    ), piped.stderr
    terminal = run("--check", "-j", "1", "--color", "always", str(tmp_path))
    assert re.search(r"parsing.*/4 files", ANSI.sub("", terminal.stderr)), (
        terminal.stderr[:500]
    )
    assert "jaxfix: parsed" not in terminal.stderr
    assert "jaxfix: parsed" not in run("--check", "-q", "-j", "1", str(tmp_path)).stderr
