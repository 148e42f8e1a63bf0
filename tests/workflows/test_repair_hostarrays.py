"""`jaxfix repair` on tests/repair_projects/hostarrays, under real JAX on both tiers: a model
runner (sglang-jax's idiom) enters its mesh, a property, with `with self.mesh:` around a jit
given PartitionSpecs (JAX014). Where the jit is called on a NumPy array made in the block,
`jax.set_mesh` commits nothing and the block is entered with it; where it is called on
`jnp.ones(...)` made in the block, `jax.set_mesh` would commit that array to the mesh and the
jit would raise: that block is never changed, and the report says why."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_block_calling_on_a_host_array_is_entered_with_set_mesh(tmp_path, version):
    run = repaired("hostarrays", tmp_path, version)
    assert run.code == 1, run.report
    assert run.changed == {"srt/model_runner.py"}
    assert run.now("srt/model_runner.py") == run.replaced(
        "srt/model_runner.py",
        (
            b"    def forward(self):\n        with self.mesh:\n",
            b"    def forward(self):\n        with jax.set_mesh(self.mesh):\n",
        ),
    )
    ((path, _, _),) = run.fixed
    assert path == "srt/model_runner.py", run.fixed
    assert run.still_raised == ["tests/test_runner.py::test_warmup"]
    ((line, detail),) = run.left.items()
    assert line == 25, run.left
    assert "is committed to the mesh" in detail
