"""`jaxfix repair` on tests/repair_projects/variants, under real JAX on both tiers: each JAX002
inner mesh takes its sizes through a step the walk back from the run's frames follows:

- a copy of a config with fields replaced: `dataclasses.replace(BASE, inner=(4, 4))` (the
  keyword is changed), `dataclasses.replace(SKINNY, outer=(2, 4))` (the field is SKINNY's,
  which a working test reads: the copy is given its own `inner=`) and a NamedTuple's
  `LAYOUT._replace(inner=(2, 2))`;
- a `functools.partial` holding the factory's sizes (`partial(make_mesh_for, shape=(2, 2))`, a
  module constant or stored on `self` by `__init__`), passed to the function that calls it:
  the partial's keyword is changed, not the working partial beside it;
- an if/elif chain returning sizes by accelerator name: only the return of the run's branch
  (`elif accel == "v5e-4"`, chosen by the key the call passes) is changed; the "v5e-8" and
  `else` returns, which working tests reach, are not; the "pod" branch's size, computed from
  the device count, is reported with its file and line."""

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

PROJECT = Path(__file__).parents[1] / "repair_projects" / "variants"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_copies_partials_and_keyed_returns_are_changed_where_the_run_read_them(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "variants")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report  # the size computed from the host is left
    left = {s["line"]: s["detail"] for s in report["left"]}
    assert set(left) == {33}
    assert (
        "the inner mesh's size comes from `(jax.device_count() // 4, 2)`, written at "
        "serve/accel.py:12 and computed from `jax.device_count()` when it runs"
    ) in left[33]
    assert changed(before, tree) == {
        "serve/settings.py",
        "serve/meshes.py",
        "serve/accel.py",
    }
    after = {k: v.decode() for k, v in snapshot(tree).items()}
    old = {k: v.decode() for k, v in before.items()}
    assert after["serve/settings.py"] == (
        old["serve/settings.py"]
        .replace(
            "replace(BASE, inner=(4, 4), batch=4)",
            "replace(BASE, inner=(2, 4), batch=4)",
        )
        .replace(
            "replace(SKINNY, outer=(2, 4))",
            "replace(SKINNY, outer=(2, 4), inner=(2, 4))",
        )
        .replace("LAYOUT._replace(inner=(2, 2))", "LAYOUT._replace(inner=(2, 4))")
    )
    # SKINNY, BASE and LAYOUT (read by working tests) are as they were
    assert (
        "SKINNY = MeshConfig(outer=(2, 2), inner=(2, 2))" in after["serve/settings.py"]
    )
    assert after["serve/meshes.py"] == (
        old["serve/meshes.py"]
        .replace(
            "partial(make_mesh_for, shape=(2, 2))",
            "partial(make_mesh_for, shape=(2, 4))",
        )
        .replace(
            "partial(make_mesh_for, shape=(1, 4))",
            "partial(make_mesh_for, shape=(2, 4))",
        )
    )
    assert "partial(make_mesh_for, shape=(4, 2))" in after["serve/meshes.py"]
    assert after["serve/accel.py"] == old["serve/accel.py"].replace(
        '"v5e-4":\n        return (2, 2)', '"v5e-4":\n        return (2, 4)'
    )
    assert "return (1, 8)" in after["serve/accel.py"]
