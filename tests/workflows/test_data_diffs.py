"""A fix that changes a data file's entry (a JSON or YAML config, jaxfix/write/data_edits.py)
is shown as a diff of that file: in `jaxfix repair`'s rounds (written, or with --dry-run not),
and by `jaxfix --diff` / `--dry-run` with a recorded run's evidence; the entry another stage
also reads is in no diff. Real JAX, a real recorded run each."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.test_repair import changed, jaxfix_repair, python, snapshot
from workflows.test_repair_origins import (
    JSON_CONFIG,
    YAML_CONFIG,
    _recorded_json_config,
)

PYTEST = ("-m", "pytest", "-q", "-p", "no:cacheprovider")
YAML_HUNK = "-  mesh_shape: [4, 4]\n+  mesh_shape: [2, 4]\n"


def _copy(source: Path, tmp_path: Path) -> Path:
    return Path(
        shutil.copytree(
            source, tmp_path / source.name, ignore=shutil.ignore_patterns("__pycache__")
        )
    )


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_dry_run_shows_the_yaml_entry_it_would_change(tmp_path, version):
    tree = _copy(YAML_CONFIG, tmp_path)
    before = snapshot(tree)
    code, report, rounds = jaxfix_repair(
        tree, tmp_path, "--dry-run", "--unsafe-fixes", "--", python(version), *PYTEST
    )
    assert code == 1 and report["stop"] == "dry-run", report
    assert changed(before, tree) == set()
    assert "--- a/stages.yaml\n+++ b/stages.yaml\n" in rounds, rounds
    assert YAML_HUNK in rounds
    # the serve entry, which the wide stage reads through an alias, is in no diff
    assert not [
        line
        for line in rounds.splitlines()
        if line[:1] in "+-" and "serve" in line and not line.startswith(("---", "+++"))
    ]


@pytest.mark.jax
def test_a_round_that_writes_the_entry_shows_its_diff(tmp_path):
    tree = _copy(YAML_CONFIG, tmp_path)
    code, report, rounds = jaxfix_repair(
        tree, tmp_path, "--unsafe-fixes", "--", python(JAX_VERSIONS[0]), *PYTEST
    )
    assert [f["path"] for f in report["fixed"]] == ["stages/run.py"], report
    assert "--- a/stages.yaml\n+++ b/stages.yaml\n" in rounds and YAML_HUNK in rounds


def _jaxfix(tree: Path, evidence: Path, mode: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "--no-cache",
            "--unsafe-fixes",
            mode,
            "--evidence",
            str(evidence),
            ".",
        ],
        cwd=tree,
        env={
            **os.environ,
            "PYTHONPATH": str(Path(__file__).parents[2]),
        },
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.jax
def test_diff_and_dry_run_with_evidence_show_the_json_entry_and_write_nothing(
    tmp_path,
):
    assert JSON_CONFIG.is_dir()
    tree, evidence = _recorded_json_config(tmp_path)
    before = snapshot(tree)
    diff = _jaxfix(tree, evidence, "--diff")
    assert diff.stdout.startswith("--- a/stages.json\n+++ b/stages.json\n"), diff
    assert '-    "mesh_shape": [4, 4]\n+    "mesh_shape": [2, 4]\n' in diff.stdout
    assert '"serve"' not in "".join(
        line for line in diff.stdout.splitlines(True) if line[:1] in "+-"
    )
    dry = _jaxfix(tree, evidence, "--dry-run")
    assert '-    "mesh_shape": [4, 4]\n+    "mesh_shape": [2, 4]\n' in dry.stdout, dry
    assert changed(before, tree) == set()
