"""`jaxfix repair` on tests/repair_projects/fixturemesh, under real JAX on both tiers: a test
calls a jit given PartitionSpecs under its fixture's `with Mesh(...) as m: yield m` (JAX014,
raised in the test: the fixture's generator is in no traceback). The recorder notes the `with
mesh:` still in force, and that block is entered with `jax.set_mesh` instead; the other
fixture's block, in force for a test that passes, is never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_the_fixtures_with_mesh_the_test_raised_under_sets_the_mesh(tmp_path, version):
    run = repaired("fixturemesh", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"conftest.py"}
    assert run.now("conftest.py") == run.replaced(
        "conftest.py",
        (
            b'    """A (data, model) mesh over the host devices, entered for the test."""\n'
            b"    grid = np.array(jax.devices()).reshape(2, 4)\n"
            b"    with Mesh(grid, axis_names=AXES) as m:",
            b'    """A (data, model) mesh over the host devices, entered for the test."""\n'
            b"    grid = np.array(jax.devices()).reshape(2, 4)\n"
            b"    with jax.set_mesh(m := Mesh(grid, axis_names=AXES)):",
        ),
    )
    ((path, _, _),) = run.fixed
    assert path == "tests/ops/test_matmul.py"
