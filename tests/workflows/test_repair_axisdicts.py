"""`jaxfix repair` on tests/repair_projects/axisdicts, under real JAX on both tiers: meshes are
{axis name: size} mappings, dataclass field defaults made by `field(default_factory=lambda:
{...})`, built by `AbstractMesh(tuple(axes.values()), tuple(axes.keys()))`. The axis the
enclosing mesh has no name for ("expert") is followed to its entry, changed in the default
because `.expert_mesh` is read on the run's path alone; `.draft_mesh` is also read by a layer
that works inside a wider mesh: named, not changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_axis_entry_of_a_field_default_is_changed_where_written(tmp_path, version):
    run = repaired("axisdicts", tmp_path, version)
    before, report = run.before, run.report
    assert run.code == 1, report
    ((path, line, detail),) = [
        (f["path"], f["line"], f["detail"]) for f in report["fixed"]
    ]
    assert (path, line) == ("mx/layers.py", 11)
    assert detail.startswith(
        "set axis 'expert' to 2 where its size is written "
        "(ParallelConfig.expert_mesh['expert'], mx/config.py:9)"
    )
    assert run.changed == {"mx/config.py"}
    assert run.now("mx/config.py") == before["mx/config.py"].replace(
        b'{"expert": 4, "model": 4}', b'{"expert": 2, "model": 4}'
    )
    ((left,),) = [[s["detail"] for s in report["left"]]]
    assert (
        "the default of `draft_mesh` (config.py:12) is shared by every "
        "`ParallelConfig`, and `.draft_mesh` is read in more than one place" in left
    )
