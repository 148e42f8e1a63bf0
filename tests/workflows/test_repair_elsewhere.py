"""`jaxfix repair` on tests/repair_projects/elsewhere, under real JAX on both tiers: three
stages raise with values built in model/settings.py, which the raising lines do not spell: a
`jax.shard_map(..., **SHARD_KWARGS)` whose dict holds `check_rep` (JAX005: the key is renamed
where the dict is written; so is `**settings.SCAN_KWARGS`'s, read from model/scans.py), a `jnp.zeros(out_sharding=ROWS)` whose imported sharding is on
another mesh than the context's (JAX011: its spec is passed; so is a factory's,
`rows_of(other).spec`, in model/factories.py), and a lowering beside a
`ShapeDtypeStruct` on an imported hand-built `AbstractMesh` of another size (JAX010: the
sharding is given the concrete mesh's abstract mesh). A fourth (model/rows.py) runs a jitted
`with_sharding_constraint` of a bare spec under `jax.set_mesh` of a `jax.make_mesh` mesh
without axis_types: JAX asserts the array's sharding (AssertionError, JAX013) and the mesh its
caller enters is given Auto axes. A fifth (model/evaluator.py) jits with a PartitionSpec, called
from a `with mesh:` block of model/training.py (JAX014): the block is entered with
`jax.set_mesh`. A sixth (model/partitioned.py) calls a `jax.experimental.pjit` function of
PartitionSpecs under `jax.set_mesh`, which pjit ignores ("pjit requires a non-empty mesh",
JAX103): it becomes `jax.jit`, which takes them from that context; model/placed.py's pjit on
NamedShardings only warns, and is left. The sibling stages (a dict that says `check_vma`, the same
abstract mesh lowered beside a mesh of its own size, a constraint whose array is placed so, a
`with mesh:` block around code that needs no mesh) are never changed. A step jitted in
model/steps.py with its output on that abstract mesh, called on 8 devices, is reported without
a fix (no concrete mesh is in view where it is jitted); called on 4, it runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.test_repair import (
    changed,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "elsewhere"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_values_built_in_another_module_are_fixed_where_the_run_shows_them(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "elsewhere")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes"
    )
    assert code == 1, report
    assert sorted((f["code"], f["path"], f["line"]) for f in report["fixed"]) == [
        ("JAX005", "model/scans.py", 12),
        ("JAX005", "model/stages.py", 18),
        ("JAX010", "model/stages.py", 41),
        ("JAX011", "model/factories.py", 16),
        ("JAX011", "model/stages.py", 31),
        ("JAX013", "model/rows.py", 10),
        ("JAX014", "model/evaluator.py", 14),
        ("JAX103", "model/partitioned.py", 18),
    ]
    ((left, detail),) = [((f["code"], f["line"]), f["detail"]) for f in report["left"]]
    assert left == (
        "JAX010",
        59,
    )  # model/steps.py names no concrete mesh: reported only
    assert "(size 4) is lowered beside a concrete mesh of 8 devices" in detail
    assert "not fixed" in detail
    assert changed(before, tree) == {
        "model/factories.py",
        "model/partitioned.py",
        "model/rows.py",
        "model/settings.py",
        "model/stages.py",
        "model/training.py",
    }
    after = snapshot(tree)
    assert after["model/settings.py"] == before["model/settings.py"].replace(
        b'"check_rep": False', b'"check_vma": False'
    )
    stages = after["model/stages.py"]
    assert b"out_sharding=ROWS.spec" in stages
    assert stages.count(b"SERVE_ABSTRACT, PartitionSpec") == 1  # the served stage's
    assert b"mesh.abstract_mesh," in stages
    assert b"**SHARD_KWARGS" in stages and b"**CHECKED_KWARGS" in stages
    rows = after["model/rows.py"]
    made = b'mesh = jax.make_mesh((4, 2), ("data", "model"))\n'
    assert before["model/rows.py"].count(made) == 2
    assert rows.count(made) == 1  # the placed stage's
    assert b"axis_types=(jax.sharding.AxisType.Auto,) * 2" in rows
    training = after["model/training.py"]
    assert training == before["model/training.py"].replace(
        b"with mesh:\n        return evaluate",
        b"with jax.set_mesh(mesh):\n        return evaluate",
    )
    assert b"with mesh:\n        return count" in training
    factories = after["model/factories.py"]
    assert factories == before["model/factories.py"].replace(
        b"out_sharding=rows_of(other))", b"out_sharding=rows_of(other).spec)"
    )
    partitioned = after["model/partitioned.py"]
    assert b"double = jax.jit(" in partitioned
    assert b"import pjit" not in partitioned
