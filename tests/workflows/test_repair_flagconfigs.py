"""`jaxfix repair` on tests/repair_projects/flagconfigs, under real JAX on both tiers: mesh
sizes come from absl flags (`_PROBE = flags.DEFINE_integer("probe_model_parallelism", 8,
...)` read as `_PROBE.value`, and `FLAGS.eval_model_parallelism`) and from a config built by
a base `get_config()` and changed field by field in a derived config module
(`config.decode_mesh_shape = (4, 4)`). Each flag read once in the project has its default
changed where it is defined; the default of `data_parallelism`, which the working train mesh
reads too, is named and left; the derived config's assignment is changed, the base config
(a working test's) is not."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_flag_defaults_and_a_derived_config_are_changed_where_written(
    tmp_path, version
):
    run = repaired("flagconfigs", tmp_path, version)
    before, report = run.before, run.report
    assert run.code == 1, report
    fixed = {(f["path"], f["line"]): f["detail"] for f in report["fixed"]}
    assert set(fixed) == {("launch/run.py", 11), ("models/transformer.py", 15)}
    assert fixed[("models/transformer.py", 15)] == (
        "resize the inner mesh to (2, 4) where its sizes are written "
        "(config.decode_mesh_shape, configs/decode_heavy.py:7)"
    )
    assert run.changed == {"launch/flags_def.py", "configs/decode_heavy.py"}
    assert run.now("launch/flags_def.py") == before["launch/flags_def.py"].replace(
        b'"probe_model_parallelism", 8', b'"probe_model_parallelism", 4'
    ).replace(b'"eval_model_parallelism", 8', b'"eval_model_parallelism", 4')
    assert run.now("configs/decode_heavy.py") == before[
        "configs/decode_heavy.py"
    ].replace(
        b"config.decode_mesh_shape = (4, 4)", b"config.decode_mesh_shape = (2, 4)"
    )
    ((left,),) = [[s["detail"] for s in report["left"]]]
    assert (
        "the default of flag 'data_parallelism' at flags_def.py:4 is read in more than one place"
        in left
    )
    assert [t["test"] for t in report["rounds"][-1]["raised"]] == [
        "tests/test_launch.py::test_sliced_axes"
    ]
