"""`jaxfix repair` on tests/repair_projects/memoized, under real JAX on both tiers: an eval
mesh is built by an `@functools.lru_cache` factory from a frozen config and entered with
`use_abstract_mesh` under the fixture's 8-device mesh (JAX002). One test reaches it through a
scorer closure (`make_scorer(config)` returns `scorer`, which the test calls); another gets
the mesh the cache kept from an earlier test's body (`scoring_mesh(config) is
scoring_mesh(config)`), whose frames are that test's path, not its own: its own call of the
factory on the path to the raising line is walked instead. Each failing test's config is
given the enclosing size where it is built; the memoizing test, the working wide scorer and
the config's default are never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_each_config_on_the_path_its_own_test_took_is_resized(tmp_path, version):
    run = repaired("memoized", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"tests/test_scores.py"}
    assert run.now("tests/test_scores.py") == run.replaced(
        "tests/test_scores.py",
        (
            b"score_shapes(ScoringConfig(), jnp",
            b"score_shapes(ScoringConfig(batch_size=8), jnp",
        ),
        (
            b'ScoringConfig(name="probe"))',
            b'ScoringConfig(name="probe", batch_size=8))',
        ),
    )
