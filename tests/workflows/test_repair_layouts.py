"""`jaxfix repair` on tests/repair_projects/layouts, under real JAX on both tiers: an inner
mesh's sizes unpacked from a layout tuple (`shape, axes = layout`, the layout a dict entry of
config.py passed through a factory's parameter), and sizes read from a JSON entry by a key the
callers pass down as a parameter (`SERVING[name]`, the test passing "narrow"), are each
changed where the run's frames lead; the entries the working stages read ("wide", in the dict
and in the JSON file) are never changed."""

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

PROJECT = Path(__file__).parents[1] / "repair_projects" / "layouts"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_unpacked_sizes_and_a_key_passed_down_are_followed_to_where_they_are_written(
    tmp_path, version
):
    tree = copied(PROJECT, tmp_path / "layouts")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 0 and report["passed"], report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        (
            "roles/stages.py",
            9,
            "resize the inner mesh to (2, 4) where its sizes are written "
            "(MESH['reference'][0], roles/config.py:8)",
        ),
        ("roles/stages.py", 15, 'set "mesh_shape" (serving.json:3) to [2, 4]'),
    ]
    assert changed(before, tree) == {"roles/config.py", "roles/serving.json"}
    after = snapshot(tree)
    assert after["roles/config.py"] == before["roles/config.py"].replace(
        b'"reference": ((4, 4), AXES)', b'"reference": ((2, 4), AXES)'
    )
    assert b'"wide": ((4, 4), AXES)' in after["roles/config.py"]
    assert after["roles/serving.json"] == before["roles/serving.json"].replace(
        b'"narrow": {"mesh_shape": [4, 4]}', b'"narrow": {"mesh_shape": [2, 4]}'
    )
