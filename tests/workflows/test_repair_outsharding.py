"""`jaxfix repair` on tests/repair_projects/outsharding, under real JAX on both tiers: each
`top_level_all_gather` runs in a lambda that `jax.jit` wraps and calls inside `with
jax.set_mesh(self.mesh):`, and its out_sharding is a local bound before the block to a
`NamedSharding` on a hand-built AbstractMesh of the serving mesh's shape (no device: JAX raises
"Context mesh ... should match the mesh of sharding ..."). The one whose local only that gather
reads is put on `self.mesh` where the local is assigned; one whose local is also returned, and
one whose jitted lambda is called later (not where it is written), are reported, never changed;
the gather already on `self.mesh` is never changed."""

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

PROJECT = Path(__file__).parents[1] / "repair_projects" / "outsharding"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_local_out_sharding_is_put_on_the_entered_mesh_where_it_is_assigned(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "outsharding")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        (
            "serve/model.py",
            26,
            "put the out_sharding on `self.mesh` (where `out` is assigned, line 24)",
        )
    ]
    assert changed(before, tree) == {"serve/model.py"}
    old = b'out = NamedSharding(self.spec_mesh, PartitionSpec(reduced={"x"}))\n        with'
    assert before["serve/model.py"].count(old) == 2
    after = snapshot(tree)["serve/model.py"]
    assert after == before["serve/model.py"].replace(
        old,
        b'out = NamedSharding(self.mesh, PartitionSpec(reduced={"x"}))\n        with',
        1,
    )
    left = {s["line"]: s["detail"] for s in report["left"]}
    assert set(left) == {38, 43}
    for detail in left.values():
        assert "the out_sharding's mesh carries no device" in detail
        assert "not fixed" in detail
