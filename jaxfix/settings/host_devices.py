"""The devices a checked program sees where it runs, when something pins them: `--host-devices
N`, or an environment that runs JAX on the CPU alone with a forced device count
(`JAX_PLATFORMS=cpu` and `XLA_FLAGS=--xla_force_host_platform_device_count=N`, or
`JAX_NUM_CPU_DEVICES=N`), as CI jobs and the scripts that test sharded code on one machine set
it. Nothing else is guessed: without a pin, the host's device count is not known."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

MOST_HOST_DEVICES = 2**16  # the largest count JAX002 asks its sizes on (`_HOSTS`)

_FORCED = re.compile(r"--xla_force_host_platform_device_count=(\d+)(?:\s|$)")
_COUNT = re.compile(r"\d+")


@dataclass(frozen=True)
class PinnedHost:
    """`devices` (`jax.device_count()` of the program), and what pins it, in words."""

    devices: int
    by: str


def parse_host_devices(value: int) -> int:
    """The `--host-devices` flag: a count of at least 1."""
    if not 1 <= value <= MOST_HOST_DEVICES:
        raise ValueError(f"must be a device count from 1 to {MOST_HOST_DEVICES}")
    return value


def pinned_by_environment(environ: Mapping[str, str]) -> PinnedHost | None:
    """The CPU device count `environ` forces on a program JAX runs on the CPU alone; None
    where another platform may be used, no count is forced, or two counts are given."""
    if environ.get("JAX_PLATFORMS", "").strip().lower() != "cpu":
        return None
    counts: list[tuple[int, str]] = []
    forced = _FORCED.findall(environ.get("XLA_FLAGS", ""))
    if forced:
        counts.append(
            (int(forced[-1]), "XLA_FLAGS' --xla_force_host_platform_device_count")
        )
    given = environ.get("JAX_NUM_CPU_DEVICES", "").strip()
    if given:
        if not _COUNT.fullmatch(given):
            return None
        counts.append((int(given), "JAX_NUM_CPU_DEVICES"))
    if len(counts) != 1 or not 1 <= counts[0][0] <= MOST_HOST_DEVICES:
        return None
    devices, where = counts[0]
    return PinnedHost(
        devices, f"{where}={devices} with JAX_PLATFORMS=cpu in this environment"
    )
