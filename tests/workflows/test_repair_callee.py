"""`jaxfix repair` on tests/repair_projects/callee, under real JAX on both tiers: a model's
layers (`nets/layers.py`) pin activations with `with_sharding_constraint` and look up an
embedding table (a gather, under `jax.jit`) on `self.mesh`, a mesh the model passes down,
built by a factory of `nets/mesh_utils.py` with `jax.make_mesh(...)` and no axis_types
(Explicit since JAX 0.9): JAX013 raised in the layers, where the code does not show which
mesh it is. The run recorded where it built the mesh JAX raised on; the factory's call is
given Auto axis types there. The stage sharing that factory keeps working; the serving
factory, Auto already, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_factory_that_built_the_mesh_is_given_auto_axis_types(tmp_path, version):
    run = repaired("callee", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"nets/mesh_utils.py"}
    assert run.now("nets/mesh_utils.py") == run.replaced(
        "nets/mesh_utils.py",
        (
            b"    return jax.make_mesh(tuple(parallelism), tuple(axis_names))\n",
            b"    return jax.make_mesh(\n"
            b"        tuple(parallelism),\n"
            b"        tuple(axis_names),\n"
            b"        axis_types=(AxisType.Auto,) * len(axis_names),\n"
            b"    )\n",
        ),
    )
    detail = "give make_mesh Auto axis types (jax.make_mesh, nets/mesh_utils.py:11)"
    assert run.fixed == [("nets/layers.py", 15, detail), ("nets/layers.py", 26, detail)]
    assert not run.left
