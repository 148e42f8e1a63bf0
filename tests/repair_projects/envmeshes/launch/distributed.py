"""Device discovery driven by the launcher's environment."""
import os

import jax


def local_device_count():
    return int(os.environ.get("TRAIN_LOCAL_DEVICES", jax.local_device_count()))


def local_mesh(axis="data"):
    n = local_device_count()
    return jax.make_mesh((n,), (axis,), devices=jax.local_devices()[:n])


def global_mesh(axis="data"):
    return jax.make_mesh((jax.device_count(),), (axis,))
