"""`jaxfix repair` on tests/repair_projects/helpergather, under real JAX on both tiers: a stage
makes its out_sharding (`NamedSharding(layouts.layout_mesh("conditions"), P(...))`) and passes
it to a shared helper that gathers (`ops.gather_reduced(c, layout)`, in a jitted lambda) under
the stage's `with jax.set_mesh(self.mesh):`. JAX raises "Context mesh ... should match the mesh
of sharding" inside the helper; the run recorded where the out_sharding's mesh was built and
where the context was entered, so the out_sharding is put on `self.mesh` where the stage makes
it. The stage already on the right layout is not changed; the one whose context mesh is a
fresh call (`jax.set_mesh(make_mesh((4, 2)))`) is left, named, not fixed."""

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

PROJECT = Path(__file__).parents[1] / "repair_projects" / "helpergather"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_out_sharding_passed_to_a_gathering_helper_is_put_on_the_entered_mesh(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "helpergather")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report  # the stage entering a fresh mesh is left
    assert changed(before, tree) == {"stages/trainer.py"}
    old = before["stages/trainer.py"].decode()
    after = snapshot(tree)["stages/trainer.py"].decode()
    assert after == old.replace(
        """        layout = NamedSharding(
            layouts.layout_mesh("conditions"), P(None, reduced={"data"})
        )
        with jax.set_mesh(self.mesh):""",
        """        layout = NamedSharding(
            self.mesh, P(None, reduced={"data"})
        )
        with jax.set_mesh(self.mesh):""",
        1,
    )
    assert after != old
    assert [(s["code"], s["path"]) for s in report["left"]] == [
        ("JAX003", "stages/ops.py")
    ]


@pytest.mark.jax
def test_without_unsafe_fixes_nothing_is_changed(tmp_path):
    tree = copied(PROJECT, tmp_path / "helpergather")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(tree, tmp_path, python(JAX_VERSIONS[0]), "-q")
    assert code == 1, report
    assert changed(before, tree) == set()
