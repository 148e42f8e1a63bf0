"""`jaxfix repair` on tests/repair_projects/yamlfactors, under real JAX on both tiers: a decode
step's out_sharding is on an abstract mesh whose sizes are the products of per-slice and
per-host parallelism read from a YAML file the command names (`python -m serve.generate
configs/two_slices.yml`), 16 beside the 8 devices the input is on (JAX010). Which factor is
wrong the code does not say: nothing is changed, and the report names each entry of that file
the sizes are made from, with its line, and what they must multiply to; as related locations in
every format too. The one-slice config runs; no file changes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.evidence.recording import RecordingDir
from workflows.repaired import PROJECTS
from workflows.test_repair import (
    changed,
    command_env,
    copied,
    jaxfix_repair,
    python,
    snapshot,
)

FACTORS = (
    "the abstract mesh's sizes (data 16, model 1) come from "
    "`(d * i for d, i in zip(dcn, ici))` at serve/topology.py:12, which the code computes "
    "from other values as it runs (jaxfix does not follow them further); its factors are "
    "written at configs/two_slices.yml:3 (dcn_data_parallelism is 2), "
    "configs/two_slices.yml:5 (ici_data_parallelism is 8); the sizes must multiply to 8; "
    "the run built the abstract mesh (data 16, model 1) at serve/topology.py:13"
)


def _repaired(tmp_path: Path, version: str, config: str) -> tuple[int, dict, set[str]]:
    tree = copied(PROJECTS / "yamlfactors", tmp_path / "yamlfactors")
    before = snapshot(tree)
    code, report, _ = jaxfix_repair(
        tree,
        tmp_path,
        "--unsafe-fixes",
        "--",
        python(version),
        "-m",
        "serve.generate",
        config,
    )
    return code, report, changed(before, tree)


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_report_names_the_config_entries_the_sizes_are_made_from(tmp_path, version):
    code, report, written = _repaired(tmp_path, version, "configs/two_slices.yml")
    assert code == 1, report
    assert report["fixed"] == []
    assert written == set()
    (left,) = report["left"]
    assert (left["path"], left["line"]) == ("serve/generate.py", 16)
    assert FACTORS in left["detail"], left["detail"]


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_one_slice_config_runs_and_nothing_changes(tmp_path, version):
    code, report, written = _repaired(tmp_path, version, "configs/one_slice.yml")
    assert code == 0, report
    assert report["left"] == [] and report["fixed"] == []
    assert written == set()


def _recorded(tree: Path, version: str) -> Path:
    """The evidence file of one recorded run of the two-slice config (kept, for `--evidence`)."""
    recording = RecordingDir()
    try:
        recording.write_patterns()
        subprocess.run(
            [python(version), "-m", "serve.generate", "configs/two_slices.yml"],
            cwd=tree,
            env=recording.env(1, command_env(tree)),
            capture_output=True,
            timeout=300,
            check=False,
        )
        kept = tree.parent / "evidence.jsonl"
        kept.write_bytes(recording.evidence(1).read_bytes())
    finally:
        recording.close()
    return kept


@pytest.mark.jax
def test_the_config_entries_are_related_locations_in_every_format(tmp_path):
    tree = copied(PROJECTS / "yamlfactors", tmp_path / "yamlfactors")
    evidence = _recorded(tree, JAX_VERSIONS[0])
    shown = {}
    for name in ("json", "sarif", "text"):
        shown[name] = subprocess.run(
            [sys.executable, "-m", "jaxfix", "--evidence", str(evidence), "--check"]
            + ["--no-cache", "--output-format", name, "."],
            cwd=tree,
            env=command_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        ).stdout
    (result,) = [f for f in json.loads(shown["json"])["files"] if f["diagnostics"]]
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["fix"] is None
    factors = [
        (r.get("path"), r["start"]["line"], r["message"])
        for r in diagnostic["related"]
        if "factor" in r["message"]
    ]
    assert factors == [
        (
            "configs/two_slices.yml",
            3,
            "dcn_data_parallelism is 2: a factor of the abstract mesh's sizes is written "
            "here; they must multiply to 8",
        ),
        (
            "configs/two_slices.yml",
            5,
            "ici_data_parallelism is 8: a factor of the abstract mesh's sizes is written "
            "here; they must multiply to 8",
        ),
    ]
    (sarif,) = json.loads(shown["sarif"])["runs"][0]["results"]
    assert [
        (
            r["physicalLocation"]["artifactLocation"]["uri"],
            r["physicalLocation"]["region"]["startLine"],
        )
        for r in sarif["relatedLocations"]
        if "factor" in r["message"]["text"]
    ] == [("configs/two_slices.yml", 3), ("configs/two_slices.yml", 5)]
    assert (
        "configs/two_slices.yml:3:1: dcn_data_parallelism is 2: a factor"
        in shown["text"]
    )
