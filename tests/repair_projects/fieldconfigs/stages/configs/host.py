"""A probe sized from the host's devices when it runs."""
import jax

from stages.configs import base


def build():
    config = base.build()
    config.name = "host"
    config.probe.data = min(8, jax.local_device_count() // 4)
    return config
