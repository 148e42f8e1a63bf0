"""`jaxfix repair` on tests/repair_projects/trainercontext, under real JAX on both tiers: a
trainer stores the mesh its config's property builds and enters it with `with self.mesh:` in a
`@contextmanager` method its `__enter__` delegates to; a step run through `step.fn(config)`
calls a jit given PartitionSpecs under `with trainer:` (JAX014). The engine cannot tell what
`self.mesh` holds; the run recorded that `with` as the one in force when JAX raised, so it is
entered with `jax.set_mesh`. The exporter's `with self.mesh:`, under which a jit given
NamedShardings runs, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_with_the_run_raised_under_enters_its_mesh(tmp_path, version):
    run = repaired("trainercontext", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"train/trainer.py"}
    assert run.now("train/trainer.py") == run.replaced(
        "train/trainer.py",
        (
            b"        with self.mesh:\n            yield self",
            b"        with jax.set_mesh(self.mesh):\n            yield self",
        ),
    )
    assert [(path, line) for path, line, _ in run.fixed] == [("train/steps.py", 25)]
