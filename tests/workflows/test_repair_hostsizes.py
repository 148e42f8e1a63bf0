"""`jaxfix repair` on tests/repair_projects/hostsizes, under real JAX on both tiers: inner mesh
sizes are entries of `stages/config.py`, some computed from the host when it runs
(`jax.device_count() // 2`, `jax.process_count() * 2`). The eval entry, a literal, is changed
where it is written; the pod entry and the serve function's size are computed from the device
and process counts: no literal written there would hold on another host, so each is reported,
naming the file, line and expression where the size is written, and never changed (the pod
line, reached by two tests, names both paths). The wide entry, computed from the device count
too and read by a stage that works, is never changed."""

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

PROJECT = Path(__file__).parents[1] / "repair_projects" / "hostsizes"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_sizes_computed_from_the_host_are_reported_at_their_origin(tmp_path, version):
    tree = copied(PROJECT, tmp_path / "hostsizes")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        (
            "stages/run.py",
            11,
            "resize the inner mesh to (2, 4) where its sizes are written "
            "(STAGES['eval']['mesh'], stages/config.py:5)",
        )
    ]
    assert changed(before, tree) == {"stages/config.py"}
    assert snapshot(tree)["stages/config.py"] == before["stages/config.py"].replace(
        b'"eval": {"mesh": (2, 2)}', b'"eval": {"mesh": (2, 4)}'
    )
    left = {s["line"]: s["detail"] for s in report["left"]}
    assert set(left) == {18, 24}
    assert (
        "not fixed: the inner mesh's size comes from `jax.device_count() // 2`, written at "
        "stages/config.py:6 and computed from `jax.device_count()` when it runs"
    ) in left[18]
    assert (
        "(axis 'data' is 4 in the run; 2 would make the enclosing size 8)" in left[18]
    )
    # two tests reached the line along two paths, with one inner mesh: both are named
    assert left[18].endswith(
        "the run built the inner meshes at stages/mesh.py:15, called from stages/run.py:18, "
        "called from tests/test_stages.py:17; stages/mesh.py:15, called from "
        "stages/run.py:18, called from tests/test_stages.py:21"
    )
    assert (
        "not fixed: the inner mesh's size comes from `jax.process_count() * 2`, written at "
        "stages/config.py:12 and computed from `jax.process_count()` when it runs"
    ) in left[24]
    assert (
        "(axis 'model' is 2 in the run; 4 would make the enclosing size 8)" in left[24]
    )
