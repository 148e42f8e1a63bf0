"""`jaxfix repair` on tests/repair_projects/envsizes, under real JAX on both tiers: the
evaluation slice's out_sharding mesh takes its size from a frozen config's field that
`EvalConfig.from_env` fills from the launcher's environment, the config reaching the mesh
through a step's `fn(config)` that static reading does not follow. The recorder noted which
variables the program's code read: the report names the line reading `EVAL_SLICE_DEVICES`
and what to set it to. `EVAL_SEED`, read beside it with the same value but no factor of the
mesh, is never named; the default slice runs and no file changes."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_variable_a_size_came_from_is_named_with_its_line(tmp_path, version):
    run = repaired("envsizes", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == []
    assert run.changed == set()
    assert run.still_raised == ["tests/test_evals.py::test_launched_slice"]
    (left,) = run.left.values()
    assert (
        "the out mesh's sizes (data 8, model 2) come from "
        "`config.slice_devices // config.model_axis_size` at evals/cache.py:9"
    ) in left, left
    assert (
        "its factors are written at evals/config.py:16 (the environment variable "
        "EVAL_SLICE_DEVICES, 16 in the run: set it to 8); the sizes must multiply to 8"
    ) in left, left
    assert "EVAL_SEED" not in left
