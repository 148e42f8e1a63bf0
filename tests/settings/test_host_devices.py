"""The host's device count pinned by `--host-devices` or by the environment."""

from pathlib import Path

import pytest

from jaxfix.check.run import build_run
from jaxfix.settings.host_devices import (
    PinnedHost,
    parse_host_devices,
    pinned_by_environment,
)
from jaxfix.settings.table import SettingError

FORCED = "--xla_force_host_platform_device_count"


def test_a_cpu_run_with_a_forced_count_pins_it():
    pinned = pinned_by_environment(
        {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": f"--xla_dump_to=/tmp {FORCED}=8"}
    )
    assert pinned == PinnedHost(
        8, f"XLA_FLAGS' {FORCED}=8 with JAX_PLATFORMS=cpu in this environment"
    )
    assert pinned_by_environment(
        {"JAX_PLATFORMS": "cpu", "JAX_NUM_CPU_DEVICES": "4"}
    ) == PinnedHost(
        4, "JAX_NUM_CPU_DEVICES=4 with JAX_PLATFORMS=cpu in this environment"
    )


@pytest.mark.parametrize(
    "environ",
    [
        {"XLA_FLAGS": f"{FORCED}=8"},  # a GPU or TPU may be used
        {"JAX_PLATFORMS": "cpu,cuda", "XLA_FLAGS": f"{FORCED}=8"},
        {"JAX_PLATFORMS": "cpu"},  # the CPU's own count
        {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": f"{FORCED}=8x"},
        {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": f"{FORCED}=0"},
        {
            "JAX_PLATFORMS": "cpu",
            "XLA_FLAGS": f"{FORCED}=8",
            "JAX_NUM_CPU_DEVICES": "4",
        },
        {"JAX_PLATFORMS": "cpu", "JAX_NUM_CPU_DEVICES": "four"},
    ],
)
def test_nothing_else_pins_it(environ):
    assert pinned_by_environment(environ) is None


def test_the_flag_takes_a_count():
    assert parse_host_devices(8) == 8
    with pytest.raises(ValueError):
        parse_host_devices(0)


def test_a_run_takes_the_flag_over_the_environment(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("XLA_FLAGS", f"{FORCED}=8")
    monkeypatch.delenv("JAX_NUM_CPU_DEVICES", raising=False)
    pinned = build_run([tmp_path], {}).options
    assert (pinned.host_devices, pinned.host_devices_by) == (
        8,
        f"XLA_FLAGS' {FORCED}=8 with JAX_PLATFORMS=cpu in this environment",
    )
    given = build_run([tmp_path], {"host_devices": 4}).options
    assert (given.host_devices, given.host_devices_by) == (4, None)
    monkeypatch.delenv("JAX_PLATFORMS")
    assert build_run([tmp_path], {}).options.host_devices is None


def test_a_config_file_cannot_pin_it(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nhost-devices = 8\n")
    with pytest.raises(SettingError, match="host-devices"):
        build_run([tmp_path], {})
