"""`jaxfix repair` on tests/repair_projects/envmeshes, under real JAX on both tiers, in
JAX-Toolbox's style: a jitted step computes on a batch placed on the global mesh under
`jax.set_mesh` of a local mesh sized by the launcher's `TRAIN_LOCAL_DEVICES`, and JAX's check
of the operands raises while tracing ("For primitive dot_general, context mesh ... should match
the aval mesh ..."). The recorder keeps that check's meshes (JAX filters its frames out from
under jit): no fix is safe, and the report names where each mesh's size comes from, the
environment variable's read among them with its value in the run and the value that makes
the meshes agree. The local batch's test passes; nothing changes."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_meshes_of_an_operation_on_another_mesh_are_named_at_their_origins(
    tmp_path, version
):
    run = repaired("envmeshes", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == []
    assert run.changed == set()
    assert run.still_raised == ["tests/test_train.py::test_train_on_the_global_batch"]
    (left,) = run.left.values()
    assert "the context mesh's sizes (data 4) come from" in left, left
    assert (
        "at launch/distributed.py:8, computed from the environment variable "
        "TRAIN_LOCAL_DEVICES when it runs: TRAIN_LOCAL_DEVICES is 4 in the run; set it "
        "to 8 for them to be the aval mesh's sizes (data 8)"
    ) in left, left
    assert "give jaxfix that file's path" not in left  # the origins are named
    assert "the aval mesh's sizes (data 8) come from `jax.device_count()` at " in left
