"""`jaxfix repair` on tests/repair_projects/sharedshape (and sharedentry), under real JAX on
both tiers: one launcher constant `EVAL_SHAPE = (2, 2)` sizes an abstract mesh two tests enter inside meshes
of size 8 and 16 (JAX002 twice). Each error's walk ends at that constant, one wanting (4, 2),
the other (8, 2): neither is written (as the static road refuses two data edits of one place),
and each site quotes its own report at the constant, which names the other's fix; the file
never changes."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_two_errors_wanting_one_constant_set_two_ways_get_neither(tmp_path, version):
    run = repaired("sharedshape", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == []
    assert run.changed == set()
    assert sorted(run.left) == [12, 22]
    # each site quotes its own report there, which names the other's fix
    for line, other in ((12, "(8, 2)"), (22, "(4, 2)")):
        assert run.left[line].endswith(
            "at pkg/launcher.py:5, another error the run raised wants this place set "
            f"another way: `resize the inner mesh to {other} where its sizes are written`"
        ), run.left[line]


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_two_errors_wanting_one_json_entry_set_two_ways_are_not_told_to_add_the_flag(
    tmp_path, version
):
    """The same with the shapes in `shapes.json` (tests/repair_projects/sharedentry): the
    write refuses both data edits, and with --unsafe-fixes given no site is told its fix
    needs it."""
    run = repaired("sharedentry", tmp_path, version)
    assert run.code == 1, run.report
    assert run.changed == set()
    assert sorted(run.left) == [12, 22]
    for detail in run.left.values():
        assert "changes the same place of shapes.json another way" in detail, detail
        assert "needs --unsafe-fixes" not in detail, detail
