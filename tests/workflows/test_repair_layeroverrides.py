"""`jaxfix repair` on tests/repair_projects/layeroverrides, under real JAX on both tiers: a
layer builds its mesh in a `cached_property` from its own fields, and an experiment's
override of `embedding()` reshapes the layer after `super().embedding()` built it
(`layer.shape = (2, 4)`), while the test's global mesh takes the experiment's class
attribute `(4, 2)`: the gather raises JAX003's context-mesh error. The run's frames lead
through the property read (`self.mesh`), the method called on the layer and the override's
return to that literal, which takes the context mesh's sizes; the sibling experiment, whose
identical override matches its own global mesh, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_overrides_layer_reshape_takes_the_context_meshs_sizes(tmp_path, version):
    run = repaired("layeroverrides", tmp_path, version)
    assert run.code == 0, run.report
    ((path, line, detail),) = run.fixed
    assert (path, line) == ("models/meshes.py", 18)
    assert detail == (
        "size the out_sharding's mesh as the context mesh: (4, 2) "
        "((2, 4), models/experiments.py:19)"
    )
    assert run.changed == {"models/experiments.py"}
    wide, tall = run.before["models/experiments.py"].split(b"class Tall")
    assert run.now("models/experiments.py") == (
        wide.replace(b"layer.shape = (2, 4)", b"layer.shape = (4, 2)")
        + b"class Tall"
        + tall
    )
