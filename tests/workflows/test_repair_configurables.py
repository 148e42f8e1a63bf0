"""`jaxfix repair` on tests/repair_projects/configurables, under real JAX on both tiers: configs
that build the class they hold (`cfg.build()` is `cfg.cls(cfg)`). A planner's abstract mesh
takes `resolve_shape(cfg.mesh_shape, ...)`, which returns the shape as given or fills a `-1`:
the run's sizes are the literal's, so the recipe's `cfg.mesh_shape = (2, 2)` is resized (the
recipe with `(-1, 2)` works and is never changed). A fitter builds its scorer with
`current_mesh()` (the abstract mesh in force) inside `with jax.set_mesh(self.device_mesh):`,
and the scorer gives it to jax.set_mesh: the concrete mesh entered around that read is passed
instead (a method passing `self.device_mesh` works and is never changed)."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_configs_literal_and_a_mesh_read_back_abstract_are_fixed_at_their_origin(
    tmp_path, version
):
    run = repaired("configurables", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"lab/recipes.py", "lab/fitter.py"}
    assert run.now("lab/recipes.py") == run.replaced(
        "lab/recipes.py",
        (b"cfg.mesh_shape = (2, 2)", b"cfg.mesh_shape = (4, 2)"),
    )
    assert run.now("lab/fitter.py") == run.replaced(
        "lab/fitter.py",
        (
            b"build(mesh=current_mesh())",
            b"build(mesh=self.device_mesh)",
        ),
    )
    assert sorted(path for path, _, _ in run.fixed) == [
        "lab/planner.py",
        "lab/scorer.py",
    ]
