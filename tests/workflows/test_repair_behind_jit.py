"""`jaxfix repair` on tests/repair_projects/jitcaller, under real JAX on both tiers: a
top_level_all_gather raised inside a `jax.jit` function, whose context mesh the caller sets
with `with jax.set_mesh(self._partitioner.global_mesh):` around its call, is fixed at that
call (JAX's traceback filtering drops the frame whose locals name the meshes: the recorder's
wrapper on the gather keeps them). A call whose input is on the context mesh already, and one
whose context mesh the run saw entered elsewhere (a global `jax.set_mesh` inside the block),
are never changed. The jitted step is called from two modules: each call the run went
through is moved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from jaxfix.evidence.facts import Origin
from jaxfix.evidence.records import read_evidence
from workflows.test_repair import (
    changed,
    copied,
    jaxfix_repair,
    python,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "jitcaller"
PYTEST = ("-m", "pytest", "-q", "-p", "no:cacheprovider")


def _copy(tmp_path: Path) -> Path:
    return copied(PROJECT, tmp_path / "jitcaller")


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_gather_under_jit_is_fixed_at_the_call_its_caller_makes(tmp_path, version):
    tree = _copy(tmp_path)
    before = snapshot(tree)
    code, report, rounds = jaxfix_repair(
        tree, tmp_path, "--unsafe-fixes", "--", python(version), *PYTEST
    )
    # reset_total still fails: its context mesh is not the one its `with` enters
    assert code == 1, report
    assert [(f["code"], f["path"], f["line"]) for f in report["fixed"]] == [
        ("JAX003", "serve/step.py", 8)
    ], report
    assert [(f["code"], f["path"], f["line"]) for f in report["left"]] == [
        ("JAX003", "serve/step.py", 13)
    ], report
    # both callers the run went through (runner.py and evaluate.py) are moved
    assert changed(before, tree) == {"serve/runner.py", "serve/evaluate.py"}
    assert (
        "    global_mesh = partitioner.global_mesh\n"
        "    with jax.set_mesh(global_mesh):\n"
        "        return gather_batch(\n"
        "            params,\n"
        "            jax.device_put(\n"
        "                batch,\n" in snapshot(tree)["serve/evaluate.py"].decode()
    )
    runner = snapshot(tree)["serve/runner.py"].decode()
    assert (
        "        global_mesh = self._partitioner.global_mesh\n"
        "        with jax.set_mesh(global_mesh):\n"
        "            return gather_batch(\n"
        "                params,\n"
        "                jax.device_put(\n"
        "                    batch,\n"
        "                    NamedSharding(global_mesh, jax.typeof(batch).sharding.spec),\n"
        in runner
    ), runner
    # the placed call and the reset one read as before
    assert "return gather_batch(params, batch=batch)" in runner
    assert "            self.reset_mesh()\n            return total(batch)\n" in runner
    assert "serve/runner.py:16" in rounds


def _record(tree: Path, caller: dict) -> bytes:
    mesh = {
        "kind": "abstract",
        "axis_types": ["Explicit", "Explicit"],
        "has_abstract_device": True,
        "device_count": None,
    }
    gather = {
        "path": str(tree / "serve" / "step.py"),
        "line": 8,
        "source": 'return params + top_level_all_gather(batch, P(reduced={"data"})).sum()',
    }
    return json.dumps(
        {
            "schema": "jaxfix-evidence/1",
            "kind": "error",
            "code": "JAX003",
            "exception": "ValueError",
            "message": "Input sharding mesh AbstractMesh('data': 8, 'model': 1, axis_types=(Explicit, Explicit)) "
            "should be equal to out_sharding mesh AbstractMesh('data': 2, 'model': 4, axis_types=(Explicit, Explicit))",
            "frames": [caller, gather],
            "meshes": {
                "input": {
                    **mesh,
                    "axis_names": ["data", "model"],
                    "axis_sizes": [8, 1],
                },
                "out": {**mesh, "axis_names": ["data", "model"], "axis_sizes": [2, 4]},
            },
        }
    ).encode()


def test_the_caller_frame_of_a_record_is_placed_and_checked(tmp_path):
    tree = _copy(tmp_path)
    files = sorted(tree.rglob("*.py"))
    step, runner = tree / "serve" / "step.py", tree / "serve" / "runner.py"
    call = "gather_batch(params, batch)"
    caller = {
        "path": str(runner),
        "line": 16,
        "source": f"return {call}",
        "end_line": 16,
        "column": 19,
        "end_column": 19 + len(call),
        "segment": call,
    }
    (evidence,) = read_evidence(_record(tree, caller), files).evidence[step]
    assert Origin("raised", "called", ((runner, 16), (step, 8))) in evidence.origins


@pytest.mark.parametrize(
    "forged",
    [
        {"path": "/etc/passwd", "line": 1, "source": None},  # outside the tree
        {  # the line shows something else at that column now
            "path": "/run/serve/runner.py",
            "line": 16,
            "source": None,
            "end_line": 16,
            "column": 19,
            "end_column": 35,
            "segment": "total(batch)",
        },
        {"path": "/run/serve/runner.py", "line": 999, "source": None},  # no such line
    ],
)
def test_a_forged_caller_frame_is_never_walked(tmp_path, forged):
    tree = _copy(tmp_path)
    files = sorted(tree.rglob("*.py"))
    (evidence,) = read_evidence(_record(tree, forged), files).evidence[
        tree / "serve" / "step.py"
    ]
    assert not [o for o in evidence.origins if o.role == "raised"]


@pytest.mark.parametrize(
    ("line", "segment"),
    [
        (27, "total(batch)"),  # another function's call
        (10, "Partitioner((2, 4))"),  # a line that does not call the gather's function
    ],
)
def test_a_caller_frame_that_does_not_pass_the_input_gets_no_fix(
    tmp_path, line, segment
):
    """An evidence file from a stranger: its caller frame is a line of the tree, checked, but
    the call there is of another function, or no call of the gather's: no fix lands there
    (`jaxfix --evidence`, which walks as repair does)."""
    tree = _copy(tmp_path)
    runner = tree / "serve" / "runner.py"
    text = runner.read_text().splitlines()[line - 1]
    column = text.index(segment)
    caller = {
        "path": str(runner),
        "line": line,
        "source": text.strip(),
        "end_line": line,
        "column": column,
        "end_column": column + len(segment),
        "segment": segment,
    }
    record = tmp_path / "evidence.jsonl"
    record.write_bytes(_record(tree, caller) + b"\n")
    before = snapshot(tree)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "--unsafe-fixes",
            "--evidence",
            str(record),
            "--fix",
            ".",
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={
            **os.environ,
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        },
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert changed(before, tree) == set(), done.stdout
