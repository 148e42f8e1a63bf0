import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def outer_mesh():
    mesh = jax.make_mesh((8, 1), ("data", "model"))
    with jax.set_mesh(mesh):
        yield mesh
