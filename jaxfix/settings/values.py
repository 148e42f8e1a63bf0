"""The values read from a config file, and reading a TOML file: what the config reader
(jaxfix/settings/config.py) and the target-version lookup (jaxfix/settings/target_version.py) share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxfix.settings.options import (
    DEFAULT_LINE_LENGTH,
    DEFAULT_MAX_FILE_SIZE,
    ImportOrder,
)
from jaxfix.settings.table import SettingError
from jaxfix.sources.file_io import ReadError, read_regular


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
    import_order: ImportOrder = ImportOrder()  # found in ruff's config


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table, its numbers bounded (jaxfix/ground/bounded_data.py); ConfigError, one
    line, otherwise."""
    from jaxfix.ground.bounded_data import DataError, load_toml

    try:  # a config may come with a pull request: a symlink to /dev/zero is no config
        return load_toml(
            read_regular(path, DEFAULT_MAX_FILE_SIZE, bound="max-file-size").decode(
                "utf-8"
            )
        )
    except (ReadError, DataError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read config: {error}") from None
