"""`jaxfix repair` on tests/repair_projects/pairmeshes, under real JAX on both tiers: meshes
are built from (name, size) pairs (`[size for _, size in axes]`, a `-1` filled in place), in
the style of vision_transformer's configs. The loader makes the factory's concrete mesh
abstract and hands it to a helper whose `with jax.set_mesh(mesh):` places each leaf with
`jax.device_put` in a lambda `jax.tree.map` runs (JAX008): the concrete mesh is kept where the
loader made it abstract, not `use_abstract_mesh` (placing needs devices). A predictor's class
attribute pairs size its gather's out_sharding mesh against the context mesh (JAX003): the
pairs take the context mesh's sizes. The planner's `.abstract_mesh`, given to no set_mesh, and
the scorer's pairs, already the context's, are never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_pairs_and_an_abstracted_mesh_are_fixed_where_written(tmp_path, version):
    run = repaired("pairmeshes", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"serve/weights.py", "serve/predict.py"}
    assert run.now("serve/weights.py") == run.replaced(
        "serve/weights.py",
        (
            b"    mesh = meshes.from_axes(settings.axes).abstract_mesh\n",
            b"    mesh = meshes.from_axes(settings.axes)\n",
        ),
    )
    assert run.now("serve/predict.py") == run.replaced(
        "serve/predict.py",
        (
            b'axes = (("batch", 2), ("model", 4))',
            b'axes = (("batch", 4), ("model", 2))',
        ),
    )
