"""Named launches: an experiment and its overrides, as a command line would give them."""
import jax

from runs.config import load

LAUNCHES = {
    "base": ("base", []),
    "small": ("small", []),
    "tiny": ("base", ["name=tiny", "probe.shape=2,2"]),
    "wide": ("base", ["name=wide", "probe.shape=8,1"]),
    "hosts": ("base", [f"probe.shape={4 * jax.process_count()},1"]),
}


def launch_config(launch, extra=()):
    experiment, overrides = LAUNCHES[launch]
    return load(experiment, [*overrides, *extra])
