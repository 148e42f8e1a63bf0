"""`jaxfix repair` on tests/repair_projects/meshdevices, under real JAX on both tiers: JAX008's
`jax.make_mesh` fix is written where nothing shows it cannot fit (its shape the device count,
or a size no device count the run shows contradicts); the pod config's 16, written too, makes
the next run fail in `jax.make_mesh` on the 8 devices, and is undone and left, named."""

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
    assert run.left[16].startswith(
        "fixed build it concrete with jax.make_mesh (jax.sharding.AbstractMesh, "
        "configs/pod.py:10), but then ValueError: Number of devices 8 must be >= "
    )
    assert run.left[16].endswith("; undone")
    assert run.still_raised == ["tests/test_configs.py::test_pod"]
