"""`jaxfix repair` on tests/repair_projects/concretemesh, under real JAX on both tiers: a
strategy's `@contextmanager` puts its mesh in force with `with jax.set_mesh(self.mesh): yield`
around the loop's jit given PartitionSpecs, and the training config builds that mesh as a
hand-written `AbstractMesh(...)`: JAX008. use_abstract_mesh would break the caller's jit (the
`yield` runs it), so the mesh is built concrete where the run built it, in the config
(`jax.make_mesh` of the same arguments); the serving config and the strategy are not changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_abstract_mesh_given_to_set_mesh_is_built_concrete_where_the_run_built_it(
    tmp_path, version
):
    run = repaired("concretemesh", tmp_path, version)
    assert run.code == 0, run.report
    assert run.fixed == [
        (
            "runtime/strategy.py",
            16,
            "build it concrete with jax.make_mesh "
            "(jax.sharding.AbstractMesh, configs/train.py:10)",
        )
    ]
    assert run.changed == {"configs/train.py"}
    assert run.now("configs/train.py") == run.replaced(
        "configs/train.py",
        (b"mesh=jax.sharding.AbstractMesh(", b"mesh=jax.make_mesh("),
    )
