"""`jaxfix repair` on tests/repair_projects/compiles, under real JAX on both tiers: a
function lowered for shapes on an AbstractMesh whose size the launcher sets (an environment
variable) and compiled at once (`.lower().compile()`). JAX raises JAX001's error at the
lowering; with lowering_platforms alone, the compile raises "device_assignment cannot be
`None`" on both tiers, and all the host's devices are refused when the mesh is smaller
(each tier with its own message). So the fix adds lowering_platforms and
`device_assignment=tuple(jax.devices()[:mesh.size])`, the size read when it runs, where the
mesh is a name the compile's function reads (else `x.sharding.mesh.size`, the argument's);
an argument built in the call, its mesh named nowhere, is reported without a fix; the
lowering on a concrete mesh works and is unchanged."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_compile_after_an_abstract_lowering_gets_the_named_mesh_s_devices(
    tmp_path, version
):
    run = repaired("compiles", tmp_path, version)
    assert run.code == 1, run.report
    platforms = "add lowering_platforms=(jax.export.default_export_platform(),) and "
    assert run.fixed == [
        (
            "export/compiled.py",
            21,
            platforms + "device_assignment=tuple(jax.devices()[:mesh.size])",
        ),
        (
            "export/compiled.py",
            31,
            platforms + "device_assignment=tuple(jax.devices()[:x.sharding.mesh.size])",
        ),
    ]
    assert run.changed == {"export/compiled.py"}
    assert run.now("export/compiled.py") == run.replaced(
        "export/compiled.py",
        (
            b"    return jax.jit(jnp.sin).trace(x).lower().compile()\n",
            b"    return jax.jit(jnp.sin).trace(x).lower(\n"
            b"        lowering_platforms=(jax.export.default_export_platform(),),\n"
            b"    ).compile(device_assignment=tuple(jax.devices()[:mesh.size]))\n",
        ),
        (
            b"    return jax.jit(jnp.cos).trace(x).lower().compile()\n",
            b"    return jax.jit(jnp.cos).trace(x).lower(\n"
            b"        lowering_platforms=(jax.export.default_export_platform(),),\n"
            b"    ).compile(device_assignment=tuple(jax.devices()[:x.sharding.mesh.size]))\n",
        ),
    )
    assert set(run.left) == {44}
    assert (
        "(mesh size unknown, and neither the mesh nor its argument is a name read where it "
        "compiles: no fix; lowering_platforms alone would make the .compile() raise "
        "'device_assignment cannot be `None`')" in run.left[44]
    )
    assert run.still_raised == ["tests/test_compiled.py::test_exp"]
