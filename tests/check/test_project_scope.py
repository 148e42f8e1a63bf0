"""The project, not the paths given, is the scope (issue 40): a file's findings are the same
whether jaxfix is given the project's root, the file alone, or the file's code on stdin with
`--stdin-filename`, or only the file's changed lines (`--diff-base`, as pre-commit runs it); the callers, imports and definitions that decide a site are looked for in
the whole project (its root: a config file's directory, else the nearest one holding
pyproject.toml, setup.cfg, setup.py or .git, else the directory above the top-most package).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine_cases import all_engine_cases
from fixture_cases import ROOT, all_cases
from jaxfix.cli.main import cli
from jaxfix.settings.config import scope_root
from jaxfix.settings.values import Config


def _trees() -> list[tuple[str, Path, list[str]]]:
    """Every project fixture: the rules' tree cases and the engine's capability cases."""
    found = [
        (f"{c.code}/{c.name}", c.project, c.cli_args) for c in all_cases() if c.project
    ]
    found += [(f"engine/{c.name}", c.tree, c.cli_args) for c in all_engine_cases()]
    return sorted(found)


TREES = _trees()


def _findings(output: str) -> dict[str, list[str]]:
    """Each file's diagnostic lines (`path:line:col: CODE ...`), by path; not the error lines
    (a file named on the command line has its syntax error reported, a found one not)."""
    by_file: dict[str, list[str]] = {}
    for line in output.splitlines():
        found = _DIAGNOSTIC.match(line)
        if found:
            by_file.setdefault(found["path"], []).append(found["rest"])
    return by_file


_DIAGNOSTIC = re.compile(r"(?P<path>[^:]+):(?P<rest>\d+:\d+: [A-Z]+[0-9]+ .*)")


def _check(args: list[str], tree: Path, stdin: bytes | None = None) -> str:
    result = CliRunner().invoke(
        cli,
        ["--check", "--no-cache", "-q", "-j", "1", *args],
        input=stdin,
        catch_exceptions=False,
    )
    assert result.exit_code in (0, 1, 2), (args, result.output)
    return result.stdout


@pytest.mark.parametrize("name, tree, args", TREES, ids=[t[0] for t in TREES])
def test_a_files_findings_do_not_depend_on_the_paths_given(
    name, tree, args, tmp_path, monkeypatch
):
    project = tmp_path / "project"
    shutil.copytree(tree, project, ignore=shutil.ignore_patterns("*.fixed.py"))
    (project / ".git").mkdir()  # the project's root, as a clone has it
    monkeypatch.chdir(project)
    whole = _findings(_check([*args, "."], project))
    files = sorted(
        str(p.relative_to(project))
        for p in project.rglob("*.py")
        if ".git" not in p.parts
    )
    _commit_emptied(project, files)  # every line of every file changed since HEAD
    for file in files:
        alone = _findings(_check([*args, file], project))
        assert alone.get(file, []) == whole.get(file, []), (name, file)
        changed = _findings(_check([*args, "--diff-base", "HEAD", file], project))
        assert changed.get(file, []) == whole.get(file, []), (name, file, "diff-base")
        given = _findings(
            _check(
                [*args, "--stdin-filename", file, "-"],
                project,
                stdin=(project / file).read_bytes(),
            )
        )
        assert given.get(file, []) == whole.get(file, []), (name, file, "stdin")
    assert any(whole.values()) or not _expects_a_finding(tree)


def _commit_emptied(project: Path, files: list[str]) -> None:
    """A commit in which each file is empty, the working tree left as it was: with
    `--diff-base HEAD` each file is all changed lines, as pre-commit gives new files."""
    texts = {file: (project / file).read_bytes() for file in files}
    for file in files:
        (project / file).write_bytes(b"")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    shutil.rmtree(project / ".git")
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "empty"], cwd=project, check=True)
    for file, text in texts.items():
        (project / file).write_bytes(text)


def _expects_a_finding(tree: Path) -> bool:
    return any(tree.rglob("*.fixed.py"))


def test_the_project_root_is_found_above_the_paths_given(tmp_path):
    (tmp_path / "repo" / "src" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "repo" / "src" / "pkg" / "sub" / "__init__.py").write_text("")
    sub = tmp_path / "repo" / "src" / "pkg" / "sub"
    none = Config(None, {})
    # no marker: the directory above the top-most package
    assert scope_root(none, [sub / "a.py"]) == tmp_path / "repo" / "src"
    (tmp_path / "repo" / ".git").mkdir()
    assert scope_root(none, [sub / "a.py"]) == tmp_path / "repo"
    (tmp_path / "repo" / "src" / "setup.cfg").write_text("")
    assert scope_root(none, [sub, sub / "a.py"]) == tmp_path / "repo" / "src"
    config = tmp_path / "repo" / "pyproject.toml"
    assert scope_root(Config(config, {}), [sub]) == tmp_path / "repo"


def test_a_cached_result_holds_while_a_caller_outside_the_paths_given_stays(
    tmp_path, monkeypatch
):
    """The file alone, warm: the cache entry of pkg/export.py depends on its caller in
    main.py, which the run was not given; editing the caller changes the answer."""
    project = tmp_path / "project"
    shutil.copytree(
        ROOT / "fixtures" / "engine" / "params_from_callers_in_other_module",
        project,
        ignore=shutil.ignore_patterns("*.fixed.py"),
    )
    (project / ".git").mkdir()
    monkeypatch.chdir(project)

    def alone() -> list[str]:
        output = CliRunner().invoke(cli, ["--check", "-q", "pkg/export.py"]).stdout
        return _findings(output).get("pkg/export.py", [])

    assert len(alone()) == 1 and alone() == _findings(_check(["."], project)).get(
        "pkg/export.py"
    )
    main = project / "main.py"
    main.write_text(main.read_text().replace("(SHARDING)", "(unknown_sharding())"))
    assert alone() == []
