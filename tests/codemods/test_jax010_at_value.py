"""JAX010 where a recorded run's frames lead to an axis size written in the code: the size is
set so that the abstract mesh's size is the device assignment's, which the message states
(`{count:devices}`); a record the code contradicts gets no fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from evidence.test_recorder_provenance import _formats, _recorded

MESHES = """\
from jax.sharding import AbstractMesh, AxisType


def state_mesh(width):
    return AbstractMesh((width,), ("x",), axis_types=(AxisType.Auto,))
"""
MAIN = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from pkg.meshes import state_mesh


def step(width):
    mesh = Mesh(np.asarray(jax.devices()), ("x",))
    double = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(state_mesh(width), P("x")))
    return double(jax.device_put(jnp.ones((8,)), NamedSharding(mesh, P("x"))))


step(width=4)
"""


def _project(tmp_path: Path, version: str = JAX_VERSIONS[0]) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "meshes.py").write_text(MESHES)
    (tmp_path / "main.py").write_text(MAIN)
    return _recorded(tmp_path, version)


def _at_keyword(tmp_path: Path, evidence: Path) -> list[dict]:
    shown = json.loads(_formats(tmp_path, evidence, "--unsafe-fixes")["json"])
    return [
        d
        for f in shown["files"]
        if f["path"].endswith("main.py")
        for d in f["diagnostics"]
        if d["start"]["line"] == 15
    ]


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_axis_size_the_walk_reaches_is_set_to_the_assignments(tmp_path, version):
    (diagnostic,) = _at_keyword(tmp_path, _project(tmp_path, version))
    assert diagnostic["code"] == "JAX010"
    assert diagnostic["fix"]["edits"][0]["content"] == "step(width=8)\n", diagnostic
    assert "set it to 8" in diagnostic["message"]


@pytest.mark.jax
def test_a_record_whose_size_the_code_contradicts_gets_no_fix(tmp_path):
    """The record says the mesh was (x 2), its message agrees, the code writes 4 there."""
    evidence = _project(tmp_path)
    forged = []
    for line in evidence.read_text().splitlines():
        record = json.loads(line)
        if record.get("code") == "JAX010":
            record["message"] = record["message"].replace("size: 4 ", "size: 2 ")
            record["meshes"]["abstract"]["axis_sizes"] = [2]
        forged.append(json.dumps(record))
    evidence.write_text("\n".join(forged) + "\n")
    assert _at_keyword(tmp_path, evidence) == []
