"""A new user's walk-through, round 3 (issue 42): nothing is written unless the command line
says so, ruff's habits, output details. One test per item, each as a person would run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_new_user import on_a_terminal

ROOT = Path(__file__).resolve().parents[2]
LOWERING = ROOT / "fixtures" / "JAX001" / "jit_lower_rewritten_to_trace_lower.py"


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")
    }
    return {**env, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **extra}


def jaxfix(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`jaxfix ARGS` in a real process, as typed in a shell."""
    return subprocess.run(
        [sys.executable, "-m", "jaxfix", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or _env(),
        timeout=300,
        input=input,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with one file that a fix would change."""
    (tmp_path / "a.py").write_text(LOWERING.read_text())
    return tmp_path


@pytest.mark.parametrize("args", [["check", "."], ["--quiet", "check", "a.py"]])
def test_check_word_reports_without_writing(project: Path, args: list[str]) -> None:
    """`jaxfix check .` is `jaxfix --check .` (ruff's `ruff check`): exit 1, the file unchanged."""
    before = (project / "a.py").read_text()
    run = jaxfix(*args, cwd=project)
    assert run.returncode == 1, run.stderr
    assert (project / "a.py").read_text() == before


def test_unknown_word_is_refused_before_anything(project: Path) -> None:
    """A mistyped command is refused (exit 2, a suggestion) and no other path is fixed."""
    before = (project / "a.py").read_text()
    run = jaxfix("chek", ".", cwd=project)
    assert run.returncode == 2
    assert "Did you mean 'check'?" in run.stderr
    assert (project / "a.py").read_text() == before
    (project / "chek").mkdir()  # an existing directory of that name is a path
    assert jaxfix("--check", "chek", cwd=project).returncode == 0


def test_bare_jaxfix_fixes_nothing(project: Path) -> None:
    """No path in fix mode: black's "No Path provided. Nothing to do", exit 2, nothing written;
    the read-only modes still check the current directory, as ruff does."""
    before = (project / "a.py").read_text()
    run = jaxfix(cwd=project)
    assert run.returncode == 2
    assert "No Path provided. Nothing to do" in run.stderr
    assert (project / "a.py").read_text() == before
    assert jaxfix("--check", cwd=project).returncode == 1


SGR = re.compile(r"\x1b\[[0-9;]*m")  # any style: colour, bold, dim, italic


def test_no_color_on_a_terminal_means_no_style_at_all(project: Path) -> None:
    """NO_COLOR=1 on a terminal: no escape codes, bold, dim and italic included (ruff's way);
    the same terminal without it is styled, so the test sees a terminal."""
    env = _env(TERM="xterm-256color")
    styled = on_a_terminal("--dry-run", "a.py", cwd=project, env=env)
    assert SGR.search(styled), styled[:300]
    plain = on_a_terminal(
        "--dry-run", "a.py", cwd=project, env={**env, "NO_COLOR": "1"}
    )
    assert "JAX001" in plain and not SGR.search(plain), plain[:300]
    explained = on_a_terminal(
        "--explain", "JAX001", cwd=project, env={**env, "NO_COLOR": "1"}
    )
    assert "JAX001" in explained and not SGR.search(explained), explained[:300]


# -- 8. output details ------------------------------------------------------------------------


def test_explain_on_a_terminal_writes_links_out(project: Path) -> None:
    """No terminal hyperlink to `../engine.md` (relative to a page the terminal never saw):
    the link is written as the repository path."""
    shown = on_a_terminal("--explain", "JAX002", cwd=project, env=_env(TERM="xterm"))
    assert "docs/engine.md" in shown and "\x1b]8;" not in shown, shown[:500]


def test_list_rules_on_80_columns_shows_every_name_whole(project: Path) -> None:
    from jaxfix.codemods import RULES

    shown = on_a_terminal(
        "--list-rules", cwd=project, env=_env(TERM="xterm", COLUMNS="80")
    )
    assert max(map(len, SGR.sub("", shown).splitlines())) <= 80
    assert all(rule.name in shown for rule in RULES.values()), shown


def test_repair_says_command_not_found_once(project: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "jaxfix", "repair", ".", "--", "no-such-command-jaxfix"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    said = run.stdout + run.stderr
    assert run.returncode == 2 and said.count("command not found") == 1, said


def test_json_fixes_carry_their_edits_as_ruffs_do(project: Path) -> None:
    """`fix.edits` (ruff's shape) rebuild the fixed file; no prefilter internals in `rules`."""
    run = jaxfix("--check", "--format", "json", "a.py", cwd=project)
    document = json.loads(run.stdout)
    assert all("tokens" not in rule for rule in document["rules"])
    lines = (project / "a.py").read_text().splitlines(keepends=True)
    fixes = [d["fix"] for d in document["files"][0]["diagnostics"] if d["fix"]]
    edits = {
        (e["location"]["row"], e["end_location"]["row"], e["content"])
        for fix in fixes
        for e in fix["edits"]
    }
    assert fixes and all(fix["edits"] for fix in fixes)
    for first, end, content in sorted(edits, reverse=True):
        lines[first - 1 : end - 1] = [content]
    fixed = jaxfix("-", cwd=project, env=None, input=(project / "a.py").read_text())
    assert "".join(lines) == fixed.stdout


# -- 9. ruff's habits -------------------------------------------------------------------------


def test_fix_no_fix_and_output_format_behave_as_ruffs(project: Path) -> None:
    before = (project / "a.py").read_text()
    assert jaxfix("--no-fix", "a.py", cwd=project).returncode == 1
    listed = jaxfix("--output-format", "json", "--check", "a.py", cwd=project)
    assert json.loads(listed.stdout)["summary"]["diagnostics"] == 1
    assert (project / "a.py").read_text() == before
    assert jaxfix("check", "--fix", "a.py", cwd=project).returncode == 0
    assert (project / "a.py").read_text() != before


def test_no_unsafe_fixes_overrides_the_config(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.jaxfix]\nunsafe-fixes = true\n")
    on = jaxfix("--show-settings", "a.py", cwd=project).stdout
    off = jaxfix("--show-settings", "--no-unsafe-fixes", "a.py", cwd=project).stdout
    assert "unsafe-fixes = true" in on and "unsafe-fixes = false" in off


def test_extend_exclude_adds_to_exclude(project: Path) -> None:
    (project / "b.py").write_text((project / "a.py").read_text())
    (project / "pyproject.toml").write_text(
        '[tool.jaxfix]\nexclude = ["a.py"]\nextend-exclude = ["b.py"]\n'
    )
    shown = jaxfix("--show-files", ".", cwd=project)
    assert shown.returncode == 0 and "a.py" not in shown.stdout
    assert "b.py" not in shown.stdout
