"""`jaxfix repair` on tests/repair_projects/scaledsizes, under real JAX on both tiers: a decode
step's out_sharding is on an abstract mesh whose sizes a topology helper computes as the
product of its per-slice and per-host parallelism (`tuple(d * i for d, i in zip(dcn, ici))`),
16 for two slices beside the 8 devices the input is on (JAX010, raised inside the jitted
call). Which factor is wrong the code does not say: no fix is made, and the report names the
line that computes the sizes. The one-slice topology runs; no file changes."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_sizes_computed_from_other_values_are_named_where_computed(tmp_path, version):
    run = repaired("scaledsizes", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == []
    assert run.changed == set()
    assert run.still_raised == ["tests/test_decode.py::test_two_slices"]
    assert (
        "and no fix is safe here: the abstract mesh's sizes (data 16, model 1) come from "
        "`(d * i for d, i in zip(dcn, ici))` at serving/topology.py:15, which the code "
        "computes from other values as it runs (jaxfix does not follow them further); "
        "the run built the abstract mesh (data 16, model 1) at serving/topology.py:16, "
        "called from serving/decode.py:11, called from tests/test_decode.py:10"
    ) in run.left[13], run.left[13]
