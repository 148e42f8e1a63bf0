"""`jaxfix repair` on tests/repair_projects/wrongcontext, under real JAX on both tiers: KV pages
made on the prefill mesh are gathered with an out_sharding on the prefill mesh under `with
jax.set_mesh(<decode mesh>):` (JAX's context-mesh error). The run holds the input's mesh too:
the input and the out_sharding agree, so the context is the one to change, where the run
entered it, onto the mesh the block reads for the out_sharding (`self.prefill_mesh`, stored
once where the run built it; a local `prefill` assigned where the run built it), also where the
gather is in the block itself. A method that gathers under the prefill mesh works and is never
changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_context_is_entered_on_the_mesh_the_input_and_out_sharding_share(
    tmp_path, version
):
    run = repaired("wrongcontext", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"disagg/worker.py"}
    assert run.now("disagg/worker.py") == run.replaced(
        "disagg/worker.py",
        (
            b"        with jax.set_mesh(self.decode_mesh):\n            gathered",
            b"        with jax.set_mesh(self.prefill_mesh):\n            gathered",
        ),
        (
            b"    with jax.set_mesh(decode):\n        out",
            b"    with jax.set_mesh(prefill):\n        out",
        ),
        (
            b"    with jax.set_mesh(decode):\n        return top_level",
            b"    with jax.set_mesh(prefill):\n        return top_level",
        ),
    )
    assert sorted(path for path, _, _ in run.fixed) == [
        "disagg/transfer.py",
        "disagg/worker.py",
    ]
    assert all(
        "enter the input's and out_sharding's mesh" in d for _, _, d in run.fixed
    )
