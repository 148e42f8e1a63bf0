"""`jaxfix repair` on tests/repair_projects/eqxplans, under real JAX on both tiers, in
equinox's style. An `eqx.Module` plan's abstract mesh takes its size from the field default
`num_shards: int = eqx.field(static=True, default=4)`, which no construction gives, inside a
mesh of 8 (JAX002): the default is set to 8 where it is written. A memoized factory returns
its mesh as `mesh.abstract_mesh`, which a training loop gives `jax.set_mesh` around a jitted
step (JAX008): the factory returns the concrete mesh. The serving plan (its construction
gives `num_shards`) and the planning factory (its abstract mesh only enters
`use_abstract_mesh`) are never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_module_field_default_and_a_factory_s_abstract_mesh_are_fixed_where_written(
    tmp_path, version
):
    run = repaired("eqxplans", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"plans/sharding.py", "plans/devices.py"}
    assert run.now("plans/sharding.py") == run.replaced(
        "plans/sharding.py",
        (
            b"    num_shards: int = eqx.field(static=True, default=4)\n\n"
            b"    def abstract_mesh(self) -> AbstractMesh:\n"
            b"        return AbstractMesh((self.num_shards,), (self.axis,))\n\n"
            b"    def data",
            b"    num_shards: int = eqx.field(static=True, default=8)\n\n"
            b"    def abstract_mesh(self) -> AbstractMesh:\n"
            b"        return AbstractMesh((self.num_shards,), (self.axis,))\n\n"
            b"    def data",
        ),
    )
    assert run.now("plans/devices.py") == run.replaced(
        "plans/devices.py",
        (
            b'def host_mesh(axis="batch"):\n'
            b"    mesh = jax.make_mesh((jax.device_count(),), (axis,))\n"
            b"    return mesh.abstract_mesh\n",
            b'def host_mesh(axis="batch"):\n'
            b"    mesh = jax.make_mesh((jax.device_count(),), (axis,))\n"
            b"    return mesh\n",
        ),
    )
