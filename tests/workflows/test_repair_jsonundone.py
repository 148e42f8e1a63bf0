"""`jaxfix repair` on tests/repair_projects/jsonundone, under real JAX on both tiers: JAX002's
fix of a JSON entry (`"mesh_shape": [4, 4]` set to `[2, 4]` in stages.json) lets the stage
enter its mesh, and the stage's batch then does not split over the new `data` axis: the next
run fails with an `AssertionError` on a line that reads the entry (inside the block the fix's
line enters). The entry is written back as it was, the site is left with what happened, and
the working entry (`probe`) is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_json_entry_the_next_run_fails_on_is_undone(tmp_path, version):
    run = repaired("jsonundone", tmp_path, version)
    report = run.report
    assert run.code == 1, report
    assert run.changed == set()
    assert report["fixed"] == []
    assert run.left == {
        14: 'fixed set "mesh_shape" (stages.json:2) to [2, 4], but then AssertionError: '
        "the batch does not split at stages/run.py:16; undone"
    }
    assert [(o["line"], o["detail"]) for o in report["rounds"][1]["undone"]] == [
        (14, run.left[14])
    ]
