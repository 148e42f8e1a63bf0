"""The values read from a config file, and reading a TOML file: what the config reader
(jaxfix/config.py) and the target-version lookup (jaxfix/target_version.py) share."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxfix.file_io import ReadError, read_regular
from jaxfix.options import DEFAULT_LINE_LENGTH, DEFAULT_MAX_FILE_SIZE
from jaxfix.settings import SettingError


class ConfigError(SettingError):
    pass


@dataclass(frozen=True)
class Config:
    path: Path | None
    values: dict[str, Any]
    line_length: int = (
        DEFAULT_LINE_LENGTH  # found in ruff's or black's config, not in [tool.jaxfix]
    )
    notes: tuple[str, ...] = ()  # deprecations, said once on stderr


def read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (
        3,
        11,
    ):  # imported here: a tree without a pyproject.toml never needs it
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:  # a config may come with a pull request: a symlink to /dev/zero is no config
        return tomllib.loads(
            read_regular(path, DEFAULT_MAX_FILE_SIZE, bound="max-file-size").decode(
                "utf-8"
            )
        )
    except (ReadError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read config: {error}") from None
