"""The hooks in .pre-commit-hooks.yaml, run by `pre-commit try-repo` against a temp repo.

A `language: python` hook is installed with `pip install .` into a fresh virtualenv, which
normally downloads jaxfix's dependencies and its build backend. To stay offline, the test
lets that virtualenv see this interpreter's site-packages (a sitecustomize on PYTHONPATH
appends them, so the hook's own freshly built jaxfix still comes first) and turns off the
package index and build isolation: pip then finds libcst, click, rich, pathspec and hatchling
already installed, and builds and installs only jaxfix.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from snippets import CLEAN, FIXED, VIOLATION

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=test@example.com", "-c", "user.name=test", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def offline_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site_dir = tmp_path_factory.mktemp("site")
    paths = sysconfig.get_paths()
    (site_dir / "sitecustomize.py").write_text(
        f"import site\nfor path in {sorted({paths['purelib'], paths['platlib']})!r}:\n    site.addsitedir(path)\n"
    )
    scratch = tmp_path_factory.mktemp("pre-commit")
    return {
        **os.environ,
        "PYTHONPATH": str(site_dir),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": "",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads this negated flag backwards: "0" turns isolation off
        "PRE_COMMIT_HOME": str(scratch / "home"),
        "VIRTUALENV_OVERRIDE_APP_DATA": str(scratch / "virtualenv"),
    }


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project as committed files: try-repo clones it."""
    repo = tmp_path_factory.mktemp("hooks")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(
        ROOT / "jaxfix", repo / "jaxfix", ignore=shutil.ignore_patterns("__pycache__")
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo


@pytest.fixture
def target(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.jaxfix]\njax-version = "0.10.2"\n')
    (tmp_path / "bad.py").write_text(VIOLATION)
    (tmp_path / "good.py").write_text(CLEAN)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    return tmp_path


def try_repo(
    target: Path, hooks_repo: Path, env: dict[str, str], *hook: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(hooks_repo),
            *hook,
            "--all-files",
        ],
        cwd=target,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_manifest_is_valid():
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_hook_fails_and_writes_nothing_then_fix_hook_fixes(
    target, hooks_repo, offline_env
):
    check = try_repo(target, hooks_repo, offline_env, "jaxfix-check")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "jaxfix (check only)" in check.stdout and "Failed" in check.stdout
    assert "bad.py:" in check.stdout and "JAX001" in check.stdout
    assert (target / "bad.py").read_text() == VIOLATION

    both = try_repo(
        target, hooks_repo, offline_env
    )  # jaxfix, then jaxfix-check on the fixed files
    assert both.returncode == 1, both.stdout + both.stderr
    assert "files were modified by this hook" in both.stdout
    assert (target / "bad.py").read_text() == FIXED
    assert (target / "good.py").read_text() == CLEAN
    check_line = next(
        line
        for line in both.stdout.splitlines()
        if line.startswith("jaxfix (check only)")
    )
    assert check_line.endswith("Passed")
