"""The CLI contract: modes, exit codes, stdin, --diff that git applies, rule docs, options."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli
from jaxfix.codemods.base import DOC_SECTIONS
from snippets import CALL, CLEAN, FIXED, VIOLATION, VIOLATION_LINE


def run(*args: str, stdin: str | None = None, cwd: Path | None = None):
    runner = CliRunner()
    old = Path.cwd()
    if cwd:
        os.chdir(cwd)
    try:
        return runner.invoke(cli, list(args), input=stdin, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "bad.py").write_text(VIOLATION)
    (tmp_path / "good.py").write_text(CLEAN)
    return tmp_path


def test_fix_mode_writes_and_exits_clean(tree):
    result = run(str(tree))
    assert result.exit_code == 0, result.output
    assert (tree / "bad.py").read_text() == FIXED
    assert (tree / "good.py").read_text() == CLEAN
    again = run(str(tree))
    assert again.exit_code == 0 and (tree / "bad.py").read_text() == FIXED


def test_check_reports_and_writes_nothing(tree):
    result = run("--check", str(tree))
    assert result.exit_code == 1
    assert f"bad.py:{VIOLATION_LINE}:" in result.output and "JAX001" in result.output
    assert (tree / "bad.py").read_text() == VIOLATION
    assert run("--check", str(tree / "good.py")).exit_code == 0


def test_dry_run_shows_the_diff_and_writes_nothing(tree):
    result = run("--dry-run", "--color", "never", str(tree))
    assert result.exit_code == 1
    assert f"-lowered = {CALL}" in result.output
    assert (tree / "bad.py").read_text() == VIOLATION


def test_diff_output_applies_with_git_apply(tree):
    result = run("--diff", ".", cwd=tree)
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/bad.py\n+++ b/bad.py\n")
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    subprocess.run(
        ["git", "apply", "-"], cwd=tree, input=result.stdout.encode(), check=True
    )
    assert (tree / "bad.py").read_text() == FIXED


def test_stdin_mode_prints_fixed_code(tree):
    result = run("-", "--stdin-filename", str(tree / "x.py"), stdin=VIOLATION)
    assert result.exit_code == 0
    assert result.stdout == FIXED
    check = run("--check", "-", stdin=VIOLATION)
    assert check.exit_code == 1 and check.stdout.startswith(
        "-:7:11: JAX001 "
    )  # diagnostics on stdout, as ruff


def test_a_broken_file_does_not_stop_the_run(tree):
    broken = "def f(:\n    pass\n" + VIOLATION
    (tree / "broken.py").write_text(broken)
    result = run(str(tree))
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if "broken.py" in line]
    assert (
        len(errors) == 1 and "syntax error" in errors[0] and "broken.py:1:" in errors[0]
    )
    assert (tree / "bad.py").read_text() == FIXED
    assert (tree / "broken.py").read_text() == broken


def test_select_and_ignore(tree):
    assert run("--check", "--ignore", "JAX001", str(tree)).exit_code == 0
    assert run("--check", "--select", "JAX00", str(tree)).exit_code == 1
    unknown = run("--check", "--select", "XYZ9", str(tree))
    assert unknown.exit_code == 2 and "unknown rule code" in unknown.output


def test_unknown_config_key_names_the_key_and_file(tree):
    (tree / "pyproject.toml").write_text("[tool.jaxfix]\nselct = ['JAX001']\n")
    result = run("--check", str(tree))
    assert result.exit_code == 2
    assert "selct" in result.output and "pyproject.toml" in result.output


def test_config_is_found_upward_and_flags_override(tree):
    (tree / "pyproject.toml").write_text("[tool.jaxfix]\nignore = ['JAX001']\n")
    sub = tree / "pkg"
    sub.mkdir()
    shutil.move(tree / "bad.py", sub / "bad.py")
    assert run("--check", str(sub)).exit_code == 0
    assert (
        run("--check", "--select", "JAX001", "--ignore", "JAX002", str(sub)).exit_code
        == 1
    )


def test_platform_option(tree):
    assert run("--platform", "cpu", "--platform", "tpu", str(tree)).exit_code == 0
    assert 'lowering_platforms=("cpu", "tpu")' in (tree / "bad.py").read_text()
    bad = run("--platform", "gpu", str(tree))
    assert bad.exit_code == 2 and "unknown platform 'gpu'" in bad.output


def test_suppression_comments(tree):
    for comment in ("# jaxfix: ignore", "# jaxfix: ignore[JAX001]", "# noqa: JAX001"):
        (tree / "bad.py").write_text(VIOLATION.replace(CALL, f"{CALL}  {comment}"))
        assert run("--check", str(tree / "bad.py")).exit_code == 0, comment
    (tree / "bad.py").write_text(
        VIOLATION.replace(CALL, f"{CALL}  # jaxfix: ignore[JAX002]")
    )
    assert run("--check", str(tree / "bad.py")).exit_code == 1


def test_list_rules_and_explain():
    listing = run("--list-rules", "--color", "never")
    assert listing.exit_code == 0
    for code in ("JAX001", "JAX002", "JAX003"):
        assert code in listing.output
    explain = run("--explain", "jax001", "--color", "never")
    assert explain.exit_code == 0
    for heading in DOC_SECTIONS:
        assert heading.removeprefix("## ") in explain.output
    assert "lowering_platforms" in explain.output and "jax.export" in explain.output
    assert run("--explain", "JAX999").exit_code == 2


def test_color_option(tree):
    plain = run("--check", "--color", "never", str(tree))
    colored = run("--check", "--color", "always", str(tree))
    assert "\x1b[" not in plain.output
    assert "\x1b[" in colored.output


def test_results_do_not_depend_on_worker_count(tmp_path):
    for index in range(20):
        (tmp_path / f"m{index:02d}.py").write_text(
            VIOLATION if index % 3 == 0 else CLEAN
        )
    one = run("--check", "--color", "never", "-j", "1", str(tmp_path))
    two = run("--check", "--color", "never", "-j", "2", str(tmp_path))
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output


@pytest.mark.parametrize(
    "command",
    [["jaxfix"], [sys.executable, "-m", "jaxfix"]],
    ids=["console-script", "python-m"],
)
def test_installed_entry_points(tree, command):
    if command == ["jaxfix"]:
        script = shutil.which("jaxfix", path=str(Path(sys.executable).parent))
        assert script, "the jaxfix console script is not installed next to this Python"
        command = [script]
    check = subprocess.run(
        [*command, "--check", str(tree)], capture_output=True, text=True
    )
    # as ruff: diagnostics on stdout, the summary on stderr
    assert (
        check.returncode == 1
        and ": JAX001 " in check.stdout
        and ": JAX001 " not in check.stderr
        and "jaxfix summary" in check.stderr
    )
    stdin = subprocess.run(
        [*command, "-"], input=VIOLATION, capture_output=True, text=True
    )
    assert stdin.returncode == 0 and stdin.stdout == FIXED
    fix = subprocess.run([*command, str(tree)], capture_output=True, text=True)
    assert fix.returncode == 0 and (tree / "bad.py").read_text() == FIXED


def test_stdin_filename_drives_excludes(tree):
    result = run(
        "-",
        "--stdin-filename",
        "generated/x.py",
        "--exclude",
        "generated",
        stdin=VIOLATION,
    )
    assert result.exit_code == 0 and result.stdout == VIOLATION
    kept = run(
        "-", "--stdin-filename", "src/x.py", "--exclude", "generated", stdin=VIOLATION
    )
    assert kept.exit_code == 0 and kept.stdout == FIXED
