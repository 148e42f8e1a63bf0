"""`jaxfix repair` on tests/repair_projects/yamlmeshes, under real JAX on both tiers: the
envmeshes step (a batch on the global mesh, computed on under `jax.set_mesh` of a local
mesh), with the local mesh's size read from `launch.yaml` rather than the environment. JAX's
check of the operands raises while tracing; no fix is safe (the local mesh works for the
local batch), and the report names the YAML entry, its line and the value that makes the
meshes agree. The local batch's test passes; nothing changes."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_mesh_sized_by_a_yaml_entry_is_named_with_its_setting(tmp_path, version):
    run = repaired("yamlmeshes", tmp_path, version)
    assert run.code == 1, run.report
    assert run.fixed == []
    assert run.changed == set()
    assert run.still_raised == ["tests/test_train.py::test_train_on_the_global_batch"]
    (left,) = run.left.values()
    assert (
        "the context mesh's sizes (data 4) come from "
        '`launch.yaml["local"]["devices"]` at launch.yaml:3, read from that file when '
        "it runs: set it to 8 for them to be the aval mesh's sizes (data 8)"
    ) in left, left
    assert "give jaxfix that file's path" not in left
