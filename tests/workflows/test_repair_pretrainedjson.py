"""`jaxfix repair` on tests/repair_projects/pretrainedjson, under real JAX on both tiers:
EasyDeL's `from_pretrained(name)` idiom, a config read from
`(Path(__file__).parents[1] / "configs" / f"{name}.json").read_text()`, whose
`eval_axis_dims` sizes an abstract mesh entered inside the model's mesh (JAX002). The file
name follows from the name the failing test passed: that file's entry is set; the other
config file, whose stage works, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_entry_of_the_file_the_run_named_is_set(tmp_path, version):
    run = repaired("pretrainedjson", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"configs/base.json"}
    assert run.now("configs/base.json") == run.replaced(
        "configs/base.json",
        (b'"eval_axis_dims": [1, 2, 2]', b'"eval_axis_dims": [1, 4, 2]'),
    )
    ((path, _, detail),) = run.fixed
    assert path == "edl/states.py", run.fixed
    assert 'set "eval_axis_dims" (configs/base.json:4)' in detail
