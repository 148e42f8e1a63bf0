"""`jaxfix repair` on tests/repair_projects/kwargcalls, under real JAX on both tiers: a
`jax.shard_map(..., **settings.SCAN_KWARGS)` whose keywords are a `dict(...)` call of another
module holding `check_rep=False` (JAX005): the keyword is renamed where the call writes it,
and the tests pass. The stage whose `dict(...)` says `check_vma=` is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_dict_call_passed_by_spread_has_its_keyword_renamed_where_written(
    tmp_path, version
):
    run = repaired("kwargcalls", tmp_path, version)
    assert run.code == 0, run.report
    assert run.fixed == [
        (
            "model/scans.py",
            16,
            "rename the key to `check_vma` (settings.SCAN_KWARGS, model/settings.py:6)",
        )
    ]
    assert run.changed == {"model/settings.py"}
    assert run.now("model/settings.py") == run.replaced(
        "model/settings.py",
        (
            b"out_specs=PartitionSpec(), check_rep=False",
            b"out_specs=PartitionSpec(), check_vma=False",
        ),
    )
