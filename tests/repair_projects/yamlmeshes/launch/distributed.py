"""Device discovery driven by the launcher's config."""
from pathlib import Path

import jax
import yaml

LAUNCH = yaml.safe_load((Path(__file__).parent.parent / "launch.yaml").read_text())


def local_mesh(axis="data"):
    return jax.make_mesh((LAUNCH["local"]["devices"],), (axis,), devices=jax.local_devices()[:4])


def global_mesh(axis="data"):
    return jax.make_mesh((jax.device_count(),), (axis,))
