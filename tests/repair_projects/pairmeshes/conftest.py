import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import pytest  # noqa: E402

from serve import meshes  # noqa: E402
from serve.settings import Settings  # noqa: E402


@pytest.fixture
def settings():
    return Settings()


@pytest.fixture
def mesh(settings):
    import jax

    m = meshes.from_axes(settings.axes)
    with jax.set_mesh(m):
        yield m
