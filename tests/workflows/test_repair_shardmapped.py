"""`jaxfix repair` on tests/repair_projects/shardmapped, under real JAX on both tiers, in
nanodo's style: a `@functools.partial(jax.shard_map, mesh=mesh, in_specs=P("data"), ...)`
nested function, called on an unsharded mask under a mesh `fsdp.create_mesh()` makes with
`jax.make_mesh(...)` and no axis_types (JAX013: Explicit axes since JAX 0.9). The raising
line calls the decorated function, not shard_map: the mesh its decorator is given is followed
to the factory in the other module, which gets Auto axis types. The evaluation mesh's factory
(Auto already) and its counter are never changed."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_decorated_shard_map_s_mesh_gets_auto_axes_in_its_factory(tmp_path, version):
    run = repaired("shardmapped", tmp_path, version)
    assert run.code == 0, run.report
    assert run.changed == {"metrics/fsdp.py"}
    assert run.now("metrics/fsdp.py") == run.replaced(
        "metrics/fsdp.py",
        (
            b'    return jax.make_mesh((n,), ("data",))\n',
            b'    return jax.make_mesh((n,), ("data",), axis_types=(AxisType.Auto,) * 1)\n',
        ),
    )
    ((path, line, _),) = run.fixed
    assert (path, line) == ("metrics/counts.py", 14)
