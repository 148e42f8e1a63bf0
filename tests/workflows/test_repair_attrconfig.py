"""`jaxfix repair` on tests/repair_projects/attrconfig, under real JAX on both tiers: a stage
reads its mesh through `self.config.eval_mesh.shape` (a Trainer built from a frozen dataclass
config whose field defaults are configs). The walk goes from the method's `self` to the
receiver the test built, through `__init__`'s `self.config = config`, to the field's default
`MeshConfig(shape=(4, 4))`, changed there because no other code reads `.eval_mesh`. The
`serve_mesh` default is read by a stage that works too: never changed, the site names its
line. Sizes chosen at run time (an environment variable, read in a function the run had left)
are reported with the line that computes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.test_repair import (
    changed,
    copied,
    python,
    repair_with_pytest,
    snapshot,
)

PROJECT = Path(__file__).parents[1] / "repair_projects" / "attrconfig"


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_nested_config_default_is_changed_where_it_is_written(tmp_path, version):
    tree = copied(PROJECT, tmp_path / "attrconfig")
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes", "-q"
    )
    assert code == 1, report
    assert [(f["path"], f["line"], f["detail"]) for f in report["fixed"]] == [
        (
            "trainer/loop.py",
            18,
            "resize the inner mesh to (2, 4) where its sizes are written "
            "(TrainerConfig.eval_mesh.shape, trainer/config.py:15)",
        )
    ]
    assert changed(before, tree) == {"trainer/config.py"}
    assert snapshot(tree)["trainer/config.py"] == before["trainer/config.py"].replace(
        b"eval_mesh: MeshConfig = MeshConfig(shape=(4, 4))",
        b"eval_mesh: MeshConfig = MeshConfig(shape=(2, 4))",
    )
    left = {s["line"]: s["detail"] for s in report["left"]}
    assert set(left) == {23, 33}
    assert "the default of `serve_mesh` at config.py:16 is shared" in left[23]
    # the one axis whose size differs is followed alone: to the value the launcher computes
    assert (
        '`int(os.environ.get("PROBE_DATA", "4"))` at config.py:21 is computed'
        in left[33]
    )
