"""--diff-base REV: only what changed since REV is reported and fixed, in real temp git repos."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import options_from_args
from jaxfix.check.changed_lines import (
    ChangedLinesError,
    carry_lines,
    changed_lines,
    parse_diff,
)
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.cli.main import cli
from toy_rules import toy_rules  # noqa: F401 - a pytest fixture

COMMITTED = "import os\n\na = old_api(0)\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path, toy_rules) -> Path:  # noqa: F811 - pytest fixture injection
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "test@example.com")
    git(tmp_path, "config", "user.name", "test")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(COMMITTED)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def run(cwd: Path, *args: str):
    here = Path.cwd()
    try:
        os.chdir(cwd)
        return CliRunner().invoke(
            cli, ["--select", "JAX9", *args], catch_exceptions=False
        )
    finally:
        os.chdir(here)


def reported_lines(result) -> list[tuple[str, int]]:
    document = json.loads(result.stdout)
    return [
        (f["path"], d["start"]["line"])
        for f in document["files"]
        for d in f["diagnostics"]
    ]


def test_only_changed_lines_are_reported(repo):
    (repo / "pkg" / "mod.py").write_text(COMMITTED + "b = old_api(1)\n")
    result = run(repo, "--check", "--diff-base", "HEAD", "--format", "json", ".")
    assert result.exit_code == 1
    assert reported_lines(result) == [("pkg/mod.py", 4)]
    everything = run(repo, "--check", "--format", "json", ".")
    assert reported_lines(everything) == [("pkg/mod.py", 3), ("pkg/mod.py", 4)]


def test_only_changed_lines_are_fixed_and_imports_still_added(repo):
    (repo / "pkg" / "mod.py").write_text(COMMITTED + "b = old_api(1)\n")
    assert run(repo, "--diff-base", "HEAD", ".").exit_code == 0
    assert (
        (repo / "pkg" / "mod.py").read_text()
        == "import os\nfrom lib import new_api\n\na = old_api(0)\nb = new_api(1)\n"
    )


def test_works_from_a_subdirectory(repo):
    (repo / "pkg" / "mod.py").write_text(COMMITTED + "b = old_api(1)\n")
    result = run(
        repo / "pkg", "--check", "--diff-base", "HEAD", "--format", "json", "."
    )
    assert reported_lines(result) == [("mod.py", 4)]


def test_unchanged_tree_reports_nothing(repo):
    result = run(repo, "--check", "--diff-base", "HEAD", "--format", "json", ".")
    assert result.exit_code == 0 and reported_lines(result) == []


def test_untracked_files_count_as_changed_throughout(repo):
    (repo / "pkg" / "new.py").write_text("c = old_api(2)\nd = old_api(3)\n")
    result = run(repo, "--check", "--diff-base", "HEAD", "--format", "json", ".")
    assert reported_lines(result) == [("pkg/new.py", 1), ("pkg/new.py", 2)]


def test_lines_move_with_the_fixes_over_several_passes(repo):
    """The outer fix rewrites the line and the added import shifts it; the inner fixes come in
    later passes and must still count as on a changed line."""
    (repo / "pkg" / "mod.py").write_text(COMMITTED + "b = spread(spread(old_api(1)))\n")
    assert run(repo, "--diff-base", "HEAD", ".").exit_code == 0
    assert (repo / "pkg" / "mod.py").read_text() == (
        "import os\nfrom lib import new_api\n\na = old_api(0)\n"
        "b = spread_out(\n    spread_out(\n    new_api(1),\n),\n)\n"
    )


def test_engine_drops_reports_off_the_changed_lines(tmp_path, toy_rules):  # noqa: F811
    path = tmp_path / "m.py"
    source = b"a = old_api(0)\nb = risky(1)\nc = old_api(\n    2)\n"
    options = options_from_args(["--select", "JAX9"])
    for changed, codes in [
        ({2}, ["JAX903"]),
        ({4}, ["JAX901"]),
        ({1, 3}, ["JAX901", "JAX901"]),
        (set(), []),
    ]:
        result = check_file(Run(options), path, source, lines=frozenset(changed))
        assert [d.code for d in result.diagnostics] == codes, changed
        assert (result.fixed is not None) == ("JAX901" in codes)
    elsewhere = check_file(Run(options), path, source, lines=frozenset())
    assert elsewhere.diagnostics == () and elsewhere.fixed is None


def test_outside_a_repository_is_a_clear_usage_error(tmp_path, toy_rules):  # noqa: F811
    (tmp_path / "m.py").write_text("a = old_api(0)\n")
    result = run(tmp_path, "--check", "--diff-base", "HEAD", ".")
    assert result.exit_code == 2
    assert (
        "--diff-base needs a git repository" in result.stderr
        and str(tmp_path) in result.stderr
    )


def test_unknown_revision_is_a_clear_usage_error(repo):
    result = run(repo, "--check", "--diff-base", "no-such-rev", ".")
    assert result.exit_code == 2
    assert (
        "--diff-base no-such-rev" in result.stderr
        and "no-such-rev" in result.stderr.split(":", 2)[-1]
    )


@pytest.mark.parametrize("rev", ["--output=WRITTEN", "-p"])
def test_a_revision_git_would_read_as_an_option_is_refused(repo, rev):
    """`git diff --output=FILE` writes FILE: a revision is never passed on as an option."""
    result = run(repo, "--check", "--diff-base", rev, ".")
    assert result.exit_code == 2
    assert "not a git revision" in result.stderr
    assert not (repo / "WRITTEN").exists()


def test_revision_and_git_message_are_escaped(repo):
    result = run(repo, "--check", "--diff-base", "x\x1b]0;title\x07\n::error::y", ".")
    assert result.exit_code == 2
    error_lines = [line for line in result.stderr.splitlines() if "diff-base" in line]
    assert (
        error_lines and "\\x1b" in error_lines[0] and "\\n::error::y" in error_lines[0]
    )
    assert "\x1b" not in result.stderr
    assert not any(line.startswith("::") for line in result.stderr.splitlines())


def test_unusual_file_names_and_deleted_files(tmp_path):
    # git quotes the last two and ends them with a tab (they hold a space): both must count
    quoted = ["sp ace\\back.py", "sp ace\nline.py"]
    names = ["sp ace.py", "tab\tx.py", "ü.py", *quoted, "plain.py", "gone.py"]
    git(tmp_path, "init", "-q")
    for name in names:
        (tmp_path / name).write_text("one\ntwo\nthree\n")
    git(tmp_path, "add", "-A")
    git(
        tmp_path,
        "-c",
        "user.email=t@e",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "-m",
        "base",
    )
    for name in names[:5]:
        (tmp_path / name).write_text("one\nTWO\nthree\n++ looks like a header\n")
    (tmp_path / "plain.py").write_text(
        "two\nthree\n"
    )  # a deletion only: no new line changed
    (tmp_path / "gone.py").unlink()
    found = changed_lines("HEAD", cwd=tmp_path)
    assert found == {
        (tmp_path / name).resolve(): frozenset({2, 4}) for name in names[:5]
    }


def test_parse_diff_hunk_headers():
    diff = (
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
        "@@ -3 +3 @@\n-a\n+b\n@@ -10,0 +11,2 @@\n+c\n+d\n@@ -20,2 +22,0 @@\n-e\n-f\n"
        "diff --git a/y.py b/y.py\ndeleted file mode 100644\n--- a/y.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n"
    )
    assert parse_diff(diff) == {"x.py": frozenset({3, 11, 12})}


def test_changed_lines_error_without_git(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ChangedLinesError, match="needs git"):
        changed_lines("HEAD", cwd=tmp_path)


def test_carry_lines_follows_moved_text_and_counts_written_lines():
    old = ["a\n", "b\n", "c\n", "d\n"]
    new = ["new\n", "a\n", "B1\n", "B2\n", "c\n", "d\n"]
    assert carry_lines(frozenset({2, 4}), old, new) == frozenset({1, 3, 4, 6})
    assert carry_lines(frozenset({1}), old, new) == frozenset({1, 2, 3, 4})
