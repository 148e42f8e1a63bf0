"""`[tool.jaxfix]` in the nearest pyproject.toml, searched upward like ruff and black do."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from jaxfix.settings import BY_KEY, SettingError


class ConfigError(SettingError):
    pass


@dataclass(frozen=True)
class Config:
    path: Path | None
    values: dict[str, Any]


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.jaxfix] table, from `start` upward."""
    start = start.absolute()
    for directory in (start, *start.parents) if start.is_dir() else start.parents:
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and "jaxfix" in _tool_table(candidate, _read(candidate)):
            return candidate
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read config: {error}") from None


def _tool_table(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table, got {tool!r}")
    return tool


def load_config(path: Path | None) -> Config:
    """Read and validate [tool.jaxfix] of `path` (a pyproject.toml, or a jaxfix.toml whose top
    level holds the keys); None gives an empty config."""
    if path is None:
        return Config(None, {})
    data = _read(path)
    table = _tool_table(path, data).get("jaxfix", {}) if path.name == "pyproject.toml" else data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jaxfix] must be a table")
    for key, value in table.items():
        if key not in BY_KEY:
            known = ", ".join(sorted(BY_KEY))
            raise ConfigError(f"{path}: unknown key '{key}' in [tool.jaxfix] (known keys: {known})")
        expected, description = BY_KEY[key].kind, BY_KEY[key].expects
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{path}: '{key}' must be {description}, got {value!r}")
        if expected is list and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: '{key}' must be {description} (strings), got {value!r}")
        if expected is int and value < 1:
            raise ConfigError(f"{path}: '{key}' must be {description} (at least 1), got {value!r}")
    return Config(path, dict(table))


def load(config_file: Path | None, paths: list[Path]) -> Config:
    """`config_file` if given, else the pyproject.toml found from the first path (or the cwd)."""
    return load_config(config_file or find_pyproject(paths[0] if paths else Path.cwd()))
