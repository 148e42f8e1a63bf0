import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def host_mesh():
    """Every device on `data`, set as the context mesh."""
    mesh = jax.make_mesh(
        (len(jax.devices()), 1), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2
    )
    with jax.set_mesh(mesh):
        yield mesh
