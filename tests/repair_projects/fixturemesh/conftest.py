import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from jax.sharding import Mesh  # noqa: E402

AXES = ("data", "model")


@pytest.fixture
def mesh():
    """A (data, model) mesh over the host devices, entered for the test."""
    grid = np.array(jax.devices()).reshape(2, 4)
    with Mesh(grid, axis_names=AXES) as m:
        yield m


@pytest.fixture
def legacy_mesh():
    """The same mesh for a test of code that reads the old resource environment."""
    grid = np.array(jax.devices()).reshape(2, 4)
    with Mesh(grid, axis_names=AXES) as m:
        yield m
