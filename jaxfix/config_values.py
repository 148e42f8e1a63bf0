"""The values read from a config file, and reading a TOML file: what the config reader
(jaxfix/config.py) and the target-version lookup (jaxfix/target_version.py) share."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxfix.options import DEFAULT_LINE_LENGTH
from jaxfix.settings import SettingError


class ConfigError(SettingError):
    pass


@dataclass(frozen=True)
class Config:
    path: Path | None
    values: dict[str, Any]
    line_length: int = DEFAULT_LINE_LENGTH  # found in ruff's or black's config, not in [tool.jaxfix]


def read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):  # imported here: a tree without a pyproject.toml never needs it
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read config: {error}") from None
