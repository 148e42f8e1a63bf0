import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import pytest


@pytest.fixture
def global_mesh():
    mesh = jax.make_mesh(
        (jax.device_count(),), ("batch",), axis_types=(jax.sharding.AxisType.Auto,)
    )
    with jax.set_mesh(mesh):
        yield mesh
