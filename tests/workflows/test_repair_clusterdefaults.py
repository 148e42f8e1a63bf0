"""`jaxfix repair` on tests/repair_projects/clusterdefaults, under real JAX on both tiers: a
frozen config dataclass (tunix's `ClusterConfig` idiom) built once, in a launcher's factory
every test calls, whose field default `sampler_shape` sizes an abstract mesh entered inside
the actor mesh (JAX002). The default is read on that path alone, so it is changed where it
is declared. `RolloutConfig` is built by two launchers, one of whose stages works with the
default: that default is never changed; the failing launcher's construction is given its
own. `reference_shape`, a working stage's field, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_field_default_read_on_one_path_is_changed_where_declared(tmp_path, version):
    run = repaired("clusterdefaults", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"rl/config.py", "rl/launch.py"}
    assert run.now("rl/config.py") == run.replaced(
        "rl/config.py",
        (
            b"    sampler_shape: tuple = (2, 2)\n",
            b"    sampler_shape: tuple = (4, 2)\n",
        ),
    )
    assert run.now("rl/launch.py") == run.replaced(
        "rl/launch.py",
        (
            b"    return RolloutConfig(actor_mesh=meshes.role_mesh((4, 2)))\n",
            b"    return RolloutConfig(actor_mesh=meshes.role_mesh((4, 2)), "
            b"plan_shape=(4, 2))\n",
        ),
    )
    # both errors raised in the one helper entering the inner mesh: one site, two edits
    ((path, line, detail),) = run.fixed
    assert (path, line) == ("rl/cluster.py", 8), run.fixed
    assert "(ClusterConfig.sampler_shape, rl/config.py:7)" in detail
    assert run.still_raised == []
