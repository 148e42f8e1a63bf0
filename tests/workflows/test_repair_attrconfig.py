"""`jaxfix repair` on tests/repair_projects/attrconfig, under real JAX on both tiers: a stage
reads its mesh through `self.config.eval_mesh.shape` (a Trainer built from a frozen dataclass
config whose field defaults are configs). The walk goes from the method's `self` to the
receiver the test built, through `__init__`'s `self.config = config`, to the field's default
`MeshConfig(shape=(4, 4))`, changed there because no other code reads `.eval_mesh`. The
`serve_mesh` default is read by a stage that works too: never changed, the site names its
line. Sizes chosen at run time (an environment variable, read in a function the run had left)
are reported with the variable, the line that reads it and the value to set it to."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_nested_config_default_is_changed_where_it_is_written(tmp_path, version):
    run = repaired("attrconfig", tmp_path, version)
    before, report = run.before, run.report
    assert run.code == 1, report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        (
            "trainer/loop.py",
            18,
            "resize the inner mesh to (2, 4) where its sizes are written "
            "(TrainerConfig.eval_mesh.shape, trainer/config.py:15)",
        )
    ]
    assert run.changed == {"trainer/config.py"}
    assert run.now("trainer/config.py") == before["trainer/config.py"].replace(
        b"eval_mesh: MeshConfig = MeshConfig(shape=(4, 4))",
        b"eval_mesh: MeshConfig = MeshConfig(shape=(2, 4))",
    )
    left = {s["line"]: s["detail"] for s in report["left"]}
    assert set(left) == {23, 33}
    assert "the default of `serve_mesh` at config.py:16 is shared" in left[23]
    # the one axis whose size differs is followed alone: to the environment variable the
    # launcher sets, named with the line that reads it and what to set it to
    assert (
        '`int(os.environ.get("PROBE_DATA", "4"))`, written at trainer/config.py:21 and '
        "computed from the environment variable PROBE_DATA when it runs" in left[33]
    )
    assert (
        "(the environment variable PROBE_DATA: set it to 2; axis 'data' is 4 in the run;"
        in left[33]
    )
