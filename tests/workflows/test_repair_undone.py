"""`jaxfix repair` on tests/repair_projects/undone, under real JAX on both tiers: JAX008's
safe fix (`with jax.set_mesh(abstract):` entered with `use_abstract_mesh`) lets the body run,
and the body reads a property that sizes the batch from the concrete mesh in force, which is
now empty: the next run fails with a `KeyError` raised while that `with` held its mesh (the
recorder notes the context the error left, which no traceback shows). The fix is undone, the
site is left with what happened, and the working sibling (`plans/served.py`) is never
changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_fix_the_next_run_fails_inside_is_undone(tmp_path, version):
    run = repaired("undone", tmp_path, version)
    report = run.report
    assert run.code == 1, report
    assert run.changed == set()
    assert report["fixed"] == []
    assert run.left == {
        10: "fixed enter it with use_abstract_mesh, but then KeyError: 'data' at "
        "plans/batching.py:13; undone"
    }
    rounds = report["rounds"]
    assert len(rounds) == 3
    assert [(o["line"], o["detail"]) for o in rounds[1]["undone"]] == [
        (10, run.left[10])
    ]
    assert run.still_raised == ["tests/test_plans.py::test_planned_batch"]
