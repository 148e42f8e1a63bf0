"""The devices a checked program sees where it runs, when `--host-devices N` gives them. Nothing
else is guessed: jaxfix's own environment (JAX_PLATFORMS, XLA_FLAGS) is not the program's, so
without the flag the host's device count is not known."""

from __future__ import annotations

MOST_HOST_DEVICES = 2**16  # the largest count JAX002 asks its sizes on (`_HOSTS`)


def parse_host_devices(value: int) -> int:
    """The `--host-devices` flag: a count of at least 1."""
    if not 1 <= value <= MOST_HOST_DEVICES:
        raise ValueError(f"must be a device count from 1 to {MOST_HOST_DEVICES}")
    return value
