"""`jaxfix repair` on tests/repair_projects/scalars, under real JAX on both tiers: inner meshes
whose sizes are written one a place (`AbstractMesh((args.draft_dp_size, args.draft_tp_size),
...)`), each axis's size a scalar of a JSON file a classmethod unpacks into a dataclass
(`cls(**raw)`), of a YAML file a loader passes to a dataclass by keyword, or a keyword of a
Python preset. The axis JAX's message shows differing is the one followed, and its value is
set where it is written; one line the run reached from two tests (`preset_sizes("eval")`,
`preset_sizes("probe")`) is followed along each path, and a constant that a working preset
reads too is replaced at the failing preset's read only. A JAX003 gather inside a jitted function, reached through a helper whose
caller sets the context mesh, is moved at that caller's call. The target, engine, train and
wide meshes, and the step whose input is on the context mesh already, are never changed."""

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
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "scalars"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_sizes_written_one_a_place_are_set_where_each_is_written(tmp_path, version):
    tree = copied(PROJECT, tmp_path / "scalars")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 0 and report["passed"], report
    assert sorted((f["path"], f["line"], f["detail"]) for f in report["fixed"]) == [
        (
            "serve/runner.py",
            12,
            "move `ids` onto `mesh` before the gather (ids, serve/runner.py:58)",
        ),
        ("serve/runner.py", 29, 'set "draft_dp_size" (configs/server.json:4) to 2'),
        ("serve/runner.py", 42, 'set "model" (configs/engine.yml:7) to 4'),
        # one line, two tests passing "eval" and "probe": each preset set (one site fixed)
        (
            "serve/runner.py",
            52,
            "set axis 'data' to 2 where its size is written "
            "(PRESETS['eval'].dp, serve/presets.py:15)",
        ),
    ], report
    assert changed(before, tree) == {
        "configs/server.json",
        "configs/engine.yml",
        "serve/presets.py",
        "serve/runner.py",
    }
    after = snapshot(tree)
    assert after["configs/server.json"] == before["configs/server.json"].replace(
        b'"draft_dp_size": 4', b'"draft_dp_size": 2'
    )
    # the one integer, its comment kept; the target's `model: 4` above as it was
    assert after["configs/engine.yml"] == before["configs/engine.yml"].replace(
        b"  model: 2  # the drafter", b"  model: 4  # the drafter"
    )
    # WIDE_DP itself, and the wide preset that works with it, are kept
    assert after["serve/presets.py"] == before["serve/presets.py"].replace(
        b'"eval": Axes(dp=4, tp=4)', b'"eval": Axes(dp=2, tp=4)'
    ).replace(b'"probe": Axes(dp=WIDE_DP, tp=4)', b'"probe": Axes(dp=2, tp=4)')
    runner = after["serve/runner.py"].decode()
    assert (
        "        mesh = self.mesh\n"
        "        with jax.set_mesh(mesh):\n"
        "            return run(\n"
        "                params,\n"
        "                jax.device_put(ids, NamedSharding(mesh, jax.typeof(ids).sharding.spec)),\n"
        in runner
    ), runner
    # the helper and the placed step read as before
    assert "    return _forward(params, ids)\n" in runner
    assert (
        "        ids = meshes.place(jnp.arange(8.0), self.mesh)\n"
        "        with jax.set_mesh(self.mesh):\n"
        "            return run(params, ids)\n" in runner
    )


def _frame(path: Path, line: int, segment: str | None = None) -> dict:
    text = path.read_text().splitlines()[line - 1]
    frame = {"path": str(path), "line": line, "source": text.strip()}
    if segment is not None:
        column = text.index(segment)
        frame |= {
            "end_line": line,
            "column": column,
            "end_column": column + len(segment),
            "segment": segment,
        }
    return frame


def _record(tree: Path, *outer: dict) -> bytes:
    """A JAX003 record of the gather in `_forward`, called from `run` (runner.py:17), called
    from the frames `outer` (outermost first)."""
    runner = tree / "serve" / "runner.py"
    mesh = {
        "kind": "abstract",
        "axis_types": ["Explicit", "Explicit"],
        "has_abstract_device": True,
        "device_count": None,
    }
    return json.dumps(
        {
            "schema": "jaxfix-evidence/1",
            "kind": "error",
            "code": "JAX003",
            "exception": "ValueError",
            "message": "Input sharding mesh AbstractMesh('data': 8, 'model': 1, axis_types=(Explicit, Explicit)) "
            "should be equal to out_sharding mesh AbstractMesh('data': 2, 'model': 4, axis_types=(Explicit, Explicit))",
            "frames": [
                *outer,
                _frame(runner, 17, "_forward(params, ids)"),
                _frame(runner, 12),
            ],
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


def test_the_callers_of_a_record_are_placed_and_checked_up_the_chain(tmp_path):
    tree = copied(PROJECT, tmp_path / "scalars")
    files = sorted(tree.rglob("*.py"))
    runner = tree / "serve" / "runner.py"
    step = _frame(runner, 58, "run(params, ids)")
    (evidence,) = read_evidence(_record(tree, step), files).evidence[runner]
    assert (
        Origin("raised", "called", ((runner, 58), (runner, 17), (runner, 12)))
        in evidence.origins
    )


@pytest.mark.parametrize(
    "forged",
    [
        {"path": "/etc/passwd", "line": 1, "source": None},  # outside the tree
        {"path": "/run/serve/runner.py", "line": 999, "source": None},  # no such line
    ],
)
def test_a_forged_outer_frame_ends_the_chain_below_it(tmp_path, forged):
    """The chain keeps the callers below the first frame that is not placed and checked."""
    tree = copied(PROJECT, tmp_path / "scalars")
    files = sorted(tree.rglob("*.py"))
    runner = tree / "serve" / "runner.py"
    step = _frame(runner, 58, "run(params, ids)")
    (evidence,) = read_evidence(_record(tree, step, forged), files).evidence[runner]
    assert [o.frames for o in evidence.origins if o.role == "raised"] == [
        ((runner, 17), (runner, 12))
    ]


@pytest.mark.parametrize(
    ("path", "line", "segment"),
    [
        # a line of the helper's module that calls no helper
        (
            "serve/runner.py",
            37,
            "AbstractMesh((args.dp_size, args.tp_size), meshes.AXES)",
        ),
        # a test's line that calls `step`, not the helper
        ("tests/test_serve.py", 45, "runner().step(jnp.float32(0))"),
    ],
)
def test_an_outer_frame_from_a_stranger_that_calls_no_helper_gets_no_fix(
    tmp_path, path, line, segment
):
    """An evidence file from a stranger: its outer frame is a real line of the tree, checked,
    but what it calls is not the helper the gather's caller is in: the walk ends at the
    helper, which enters no context, so nothing is moved (`jaxfix --evidence`, which walks as
    repair does)."""
    tree = copied(PROJECT, tmp_path / "scalars")
    record = tmp_path / "evidence.jsonl"
    record.write_bytes(_record(tree, _frame(tree / path, line, segment)) + b"\n")
    before = snapshot(tree)
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--unsafe-fixes", "--evidence", str(record)]
        + ["--fix", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert changed(before, tree) == set(), done.stdout


def test_the_true_outer_frame_moves_the_input_at_the_caller_s_call(tmp_path):
    """The twin: the same record with `step`'s line as the outer frame is fixed there."""
    tree = copied(PROJECT, tmp_path / "scalars")
    runner = tree / "serve" / "runner.py"
    record = tmp_path / "evidence.jsonl"
    record.write_bytes(_record(tree, _frame(runner, 58, "run(params, ids)")) + b"\n")
    before = snapshot(tree)
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--unsafe-fixes", "--evidence", str(record)]
        + ["--fix", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert changed(before, tree) == {"serve/runner.py"}, done.stdout
    assert "jax.device_put(ids, NamedSharding(mesh" in runner.read_text()
