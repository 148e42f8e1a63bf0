"""The columns a recorded run keeps for each frame's call tell two calls of one function on a
line apart (`pair(meshes.build(TRAIN), meshes.build(EVAL))`): the walk follows the one that
built the mesh. An evidence file may come from a stranger: a column without the text it
spans, or whose text the line does not hold there, is not used; one that names the other
call (with its text) leads to a literal that does not hold the run's sizes: no fix."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from evidence.test_recorder_provenance import _formats, _recorded

MESHES = """\
import jax
from jax.sharding import AxisType


def build(shape):
    return jax.make_mesh(shape, ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
"""
MAIN = """\
import jax

from pkg import meshes

TRAIN = (4, 2)
EVAL = (2, 2)


def pair(a, b):
    return a, b


train, held_out = pair(meshes.build(TRAIN), meshes.build(EVAL))
with jax.set_mesh(train):
    with jax.sharding.use_abstract_mesh(held_out.abstract_mesh):
        pass
"""
CALL = "meshes.build(EVAL)"
OTHER = "meshes.build(TRAIN)"


def _forged(evidence: Path, change: Callable[[dict], None]) -> None:
    """`evidence` with `change` applied to each recorded frame of the call `CALL`."""

    def visit(value: object) -> None:
        if isinstance(value, dict):
            if value.get("segment") == CALL:
                change(value)
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    records = [json.loads(line) for line in evidence.read_text().splitlines() if line]
    for record in records:
        visit(record)
    evidence.write_text("".join(json.dumps(r) + "\n" for r in records))


def _unsegmented(frame: dict) -> None:
    del frame["segment"]


def _shifted(frame: dict) -> None:
    frame["column"] += 1
    frame["end_column"] += 1


def _other_call(frame: dict) -> None:
    start = MAIN.splitlines()[12].index(OTHER)
    frame.update(column=start, end_column=start + len(OTHER), segment=OTHER)


def _fixes(tmp_path: Path, evidence: Path) -> list[tuple[int, str]]:
    shown = _formats(tmp_path, evidence, "--unsafe-fixes")
    return [
        (d["start"]["line"], d["fix"]["title"])
        for f in json.loads(shown["json"])["files"]
        for d in f["diagnostics"]
        if d["fix"] is not None
    ]


@pytest.mark.jax
@pytest.mark.parametrize(
    ("forge", "fixes"),
    [
        (None, [(6, "resize the inner mesh to (4, 2) where its sizes are written")]),
        (_unsegmented, []),
        (_shifted, []),
        (_other_call, []),
    ],
)
def test_the_recorded_columns_pick_the_call_that_built_the_mesh(tmp_path, forge, fixes):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "meshes.py").write_text(MESHES)
    (tmp_path / "main.py").write_text(MAIN)
    evidence = _recorded(tmp_path, JAX_VERSIONS[0])
    assert CALL in evidence.read_text()
    if forge is not None:
        _forged(evidence, forge)
    assert _fixes(tmp_path, evidence) == fixes
