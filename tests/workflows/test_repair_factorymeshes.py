"""`jaxfix repair` on tests/repair_projects/factorymeshes, under real JAX on both tiers: each
mixer's shard_map is given a mesh that a factory of another module makes with
`jax.make_mesh(...)` without axis_types (Explicit since JAX 0.9), and an unsharded input
(JAX013, raised at the shard_map). The factory's call is given Auto axis types where it is
written: `* len(names)` where the names are a parameter (each caller's count), `* 2` for a
literal of two names. The factory in a module holding code written for Explicit axes
(`reshard`) is named, never changed; the factory that already gives Auto axes, whose mixer
works, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_factorys_make_mesh_is_given_auto_axis_types(tmp_path, version):
    run = repaired("factorymeshes", tmp_path, version)
    assert run.code == 1, run.report
    assert run.changed == {"mixing/meshes.py"}
    now = run.now("mixing/meshes.py")
    assert (
        b"tuple(names),\n        axis_types=(jax.sharding.AxisType.Auto,) * len(names),\n"
        in now
    ), now
    assert (
        b'("stage", "data"),\n        axis_types=(jax.sharding.AxisType.Auto,) * 2,\n'
        in now
    )
    assert now.count(b"axis_types=") == 3, now  # the served factory's own, unchanged
    assert sorted((path, line) for path, line, _ in run.fixed) == [
        ("mixing/mixer.py", 26),
        ("mixing/mixer.py", 37),
    ]
    assert run.still_raised == ["tests/test_mixers.py::test_row_mixer"]
    [row] = run.left.values()
    assert "explicit.py:8" in row, row
    assert "code written for Explicit axes" in row, row
