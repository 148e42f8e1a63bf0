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

# key -> (type check, description for errors)
CONFIG_KEYS: dict[str, tuple[type, str]] = {
    "select": (list, "a list of rule codes or prefixes"),
    "ignore": (list, "a list of rule codes or prefixes"),
    "exclude": (list, "a list of glob patterns"),
    "unsafe-fixes": (bool, "true or false"),
    "platforms": (list, "a list of platform names"),
    "fill-axis": (str, "an axis name"),
    "jax-version": (str, 'a version string such as "0.10.2"'),
    "max-file-size": (int, "a number of bytes"),
    "cache-dir": (str, "a directory (relative to this file)"),
}


class ConfigError(Exception):
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
        if candidate.is_file() and "jaxfix" in _read(candidate).get("tool", {}):
            return candidate
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read config: {error}") from None


def load_config(path: Path | None) -> Config:
    """Read and validate [tool.jaxfix] of `path` (a pyproject.toml, or a jaxfix.toml whose top
    level holds the keys); None gives an empty config."""
    if path is None:
        return Config(None, {})
    data = _read(path)
    table = data.get("tool", {}).get("jaxfix", {}) if path.name == "pyproject.toml" else data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jaxfix] must be a table")
    for key, value in table.items():
        if key not in CONFIG_KEYS:
            known = ", ".join(sorted(CONFIG_KEYS))
            raise ConfigError(f"{path}: unknown key '{key}' in [tool.jaxfix] (known keys: {known})")
        expected, description = CONFIG_KEYS[key]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ConfigError(f"{path}: '{key}' must be {description}, got {value!r}")
        if expected is list and not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: '{key}' must be {description} (strings), got {value!r}")
    return Config(path, dict(table))
