"""`jaxfix repair` on tests/repair_projects/pairedcalls, under real JAX on both tiers: one line
builds both of a trainer's meshes (`Trainer(meshes.build(TRAIN_SHAPE),
meshes.build(EVAL_SHAPE))`), and the eval mesh is too small for the train mesh it is entered
in (JAX002). The run's frames record the columns of each call, so the walk follows the call
that built the eval mesh to `EVAL_SHAPE`; `TRAIN_SHAPE` (the other call on that line) and
`SERVE_SHAPE` (a stage that works) never change."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_call_of_two_on_one_line_that_built_the_mesh_is_followed(tmp_path, version):
    run = repaired("pairedcalls", tmp_path, version)
    assert run.code == 0, run.report
    assert run.fixed == [
        (
            "pkg/stages.py",
            12,
            "resize the inner mesh to (4, 2) where its sizes are written "
            "(EVAL_SHAPE, pkg/launcher.py:5)",
        )
    ]
    assert run.changed == {"pkg/launcher.py"}
    assert run.now("pkg/launcher.py") == run.replaced(
        "pkg/launcher.py", (b"EVAL_SHAPE = (2, 2)", b"EVAL_SHAPE = (4, 2)")
    )
