"""`jaxfix repair` on tests/repair_projects/axisnames, under real JAX on both tiers: a
partitioner's export mesh has its training mesh's sizes under other axis names, written as a
class attribute (`EXPORT_AXES = ("data", "model")`) that `__init__` passes to a mesh factory
in another module; the gather under the training mesh raises "Context mesh ... should match
the mesh of sharding ...". The run's frames lead from `Mesh(devices, axis_names)` to that
literal, whose names become the context mesh's. The serving partitioner, whose export axes
are its mesh's already, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_export_mesh_s_axis_names_are_set_where_written(tmp_path, version):
    run = repaired("axisnames", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"export/partitioning.py"}
    assert run.now("export/partitioning.py") == run.replaced(
        "export/partitioning.py",
        (
            b'    EXPORT_AXES = ("data", "model")\n',
            b'    EXPORT_AXES = ("data", "fsdp")\n',
        ),
    )
    ((path, _, detail),) = run.fixed
    assert path == "export/gather.py", run.fixed
    assert "name the out_sharding's mesh's axes as the context mesh's" in detail
