"""`jaxfix repair` on tests/repair_projects/meshdevices, under real JAX on both tiers: JAX008's
`jax.make_mesh` fix is written only where it fits the devices the run shows (a concrete mesh of
4 built by a probe) or its shape is the device count; the pod config's 16 is left, named."""

from __future__ import annotations

import pytest

from codemods.test_real_jax import JAX_VERSIONS
from workflows.repaired import repaired


@pytest.mark.jax
@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_make_mesh_larger_than_the_devices_the_run_shows_is_not_written(
    tmp_path, version
):
    run = repaired("meshdevices", tmp_path, version)
    assert run.fixed == [
        (
            "runtime/local.py",
            16,
            (
                "build it concrete with jax.make_mesh "
                "(jax.sharding.AbstractMesh, configs/host.py:10)"
            ),
        )
    ]
    assert run.changed == {"configs/host.py"}
    assert run.now("configs/host.py") == run.replaced(
        "configs/host.py", (b"mesh=jax.sharding.AbstractMesh(", b"mesh=jax.make_mesh(")
    )
    assert run.left[16].endswith(
        "; at configs/pod.py:10, jax.make_mesh of size 16 raises on fewer devices and "
        "the run shows 4 at least (a concrete mesh the run built at probe.py:7, "
        "evidence record 3): build it on the devices the program has"
    )
    assert run.still_raised == ["tests/test_configs.py::test_pod"]
