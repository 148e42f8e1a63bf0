import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import pytest  # noqa: E402

from maxcfg import meshes, pyconfig  # noqa: E402

BASE = os.path.join(os.path.dirname(__file__), "maxcfg", "configs", "base.yml")


@pytest.fixture
def config():
    return pyconfig.initialize([None, BASE])


@pytest.fixture
def mesh(config):
    import jax

    m = meshes.device_mesh(config)
    with jax.set_mesh(m):
        yield m
