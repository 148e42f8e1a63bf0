"""The host's device count, given by `--host-devices` only."""

from pathlib import Path

import pytest

from jaxfix.check.run import build_run
from jaxfix.settings.host_devices import parse_host_devices
from jaxfix.settings.table import SettingError

FORCED = "--xla_force_host_platform_device_count"


def test_the_flag_takes_a_count():
    assert parse_host_devices(8) == 8
    with pytest.raises(ValueError):
        parse_host_devices(0)


def test_jaxfix_own_environment_does_not_pin_it(tmp_path: Path, monkeypatch):
    """A CI job that forces 8 CPU devices for its tests says nothing of where the checked
    program runs: findings never change with jaxfix's environment."""
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("XLA_FLAGS", f"{FORCED}=8")
    monkeypatch.setenv("JAX_NUM_CPU_DEVICES", "8")
    assert build_run([tmp_path], {}).options.host_devices is None
    assert build_run([tmp_path], {"host_devices": 4}).options.host_devices == 4


def test_a_config_file_cannot_pin_it(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nhost-devices = 8\n")
    with pytest.raises(SettingError, match="host-devices"):
        build_run([tmp_path], {})
