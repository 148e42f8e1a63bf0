"""`jaxfix repair` on tests/repair_projects/experiments, under real JAX on both tiers:
experiment classes registered by name (`@register`, then `get(name)()`) override a base's
class attributes (`DECODE_MESH_SHAPE = [4, 4]`), which the base's `task()` copies onto the
model's parameters (`model_p.decode_mesh_shape = self.DECODE_MESH_SHAPE`) and a decoder's
method builds its mesh from. The code does not say which experiment the run built, so the
walk takes the one class's value that holds the run's sizes (every other a literal that does
not): that override is changed; the base's and the working experiment's are not; the wide
decode experiment's value, which a subclass inherits, is named and left."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_experiments_class_attribute_is_changed_where_it_is_overridden(
    tmp_path, version
):
    run = repaired("experiments", tmp_path, version)
    before, report = run.before, run.report
    assert run.code == 1, report
    ((path, line, detail),) = [
        (f["path"], f["line"], f["detail"]) for f in report["fixed"]
    ]
    assert (path, line) == ("paxexp/base.py", 41)
    assert detail.startswith(
        "resize the inner mesh to (2, 4) where its sizes are written "
        "(LmCloudSpmdDecode.DECODE_MESH_SHAPE, paxexp/lm.py:14)"
    )
    assert run.changed == {"paxexp/lm.py"}
    assert run.now("paxexp/lm.py") == before["paxexp/lm.py"].replace(
        b"    DECODE_MESH_SHAPE = [4, 4]", b"    DECODE_MESH_SHAPE = [2, 4]"
    )
    ((left,),) = [[s["detail"] for s in report["left"]]]
    assert (
        "`LmCloudSpmdWideDecode.DECODE_MESH_SHAPE` (lm.py:19) is inherited by "
        "LmCloudSpmdWideDecodeV2 too: not changed" in left
    )
