"""Which JAX release the checked code targets, and where that came from.

In order: `--target-version` (alias `--jax-version`); `target-version` in `[tool.jaxfix]`; the
project's own pin on `jax`, the lowest version it allows (as ruff reads `requires-python`);
the jax installed next to jaxfix; else the newest behavior. The project is the nearest
directory, from the first path given upward, holding a `pyproject.toml`, a `setup.cfg` or a
`requirements*.txt`; its pins are read from `[project] dependencies`, then
`[project.optional-dependencies]`, then `requirements*.txt`, then `setup.cfg`'s
`install_requires` and `extras_require`, the first that pins jax winning.

`packaging` is not a dependency of jaxfix, so requirement strings are read here: a name, extras,
a specifier list, a marker. Only lower bounds matter (`>=`, `==`, `~=`, `===`, `>`); a pin
without one (`jax`, `jax<0.13`, `jax @ URL`) says nothing and the next source is asked.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxfix.settings.jax_version import installed_jax_version, parse_version
from jaxfix.settings.values import Config, ConfigError, read_toml

FLAG, CONFIG, PIN, INSTALLED, NEWEST = "flag", "config", "pin", "installed", "newest"

# PEP 508: a name (PEP 503 compares them case-insensitively, `-`, `_` and `.` alike), extras,
# then the specifiers (maybe in parentheses) up to a marker.
_REQUIREMENT = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<rest>[^;]*)"
)
_SPECIFIER = re.compile(
    r"^\s*(?P<op>===|==|~=|!=|<=|>=|<|>)\s*(?P<version>[^\s,]+)\s*$"
)
_RELEASE = re.compile(r"^v?(?P<release>\d+(?:\.\d+)*)")


@dataclass(frozen=True)
class TargetVersion:
    """The JAX version rules assume (None: the newest behavior) and where it was read."""

    version: tuple[int, ...] | None
    kind: str  # FLAG, CONFIG, PIN, INSTALLED or NEWEST
    origin: str = (
        ""  # the flag, the config file, or the file and requirement that pin it
    )

    @property
    def text(self) -> str:
        return (
            ".".join(map(str, self.version)) if self.version is not None else "newest"
        )

    def describe(self) -> str:
        """`0.12 (pyproject.toml: jax>=0.12)`: for the summary, `-v` and `--show-settings`."""
        where = {
            FLAG: self.origin,
            CONFIG: f"{self.origin} [tool.jaxfix] target-version",
            PIN: self.origin,
            INSTALLED: "the installed jax",
            NEWEST: "no pin and no jax installed: the newest behavior",
        }[self.kind]
        return f"{self.text} ({where})"


def target_version(
    config: Config, flag: str | None, start: Iterable[Path] | None
) -> TargetVersion:
    """The target version for checking the paths `start` (None: do not look for a project pin).

    Raises ValueError (naming its origin) for a flag or config value that is no version."""
    if flag:
        return TargetVersion(_parse(flag, "--target-version"), FLAG, "--target-version")
    configured = config.values.get("target-version")
    if configured is not None:
        return TargetVersion(
            _parse(configured, str(config.path)), CONFIG, str(config.path)
        )
    pinned = None if start is None else project_pin(next(iter(start), Path.cwd()))
    if pinned is not None:
        return pinned
    installed = installed_jax_version()
    return (
        TargetVersion(installed, INSTALLED)
        if installed is not None
        else TargetVersion(None, NEWEST)
    )


def _parse(text: str, origin: str) -> tuple[int, ...]:
    try:
        return parse_version(text)
    except ValueError as error:
        raise ValueError(f"{origin}: {error}") from None


def project_pin(start: Path) -> TargetVersion | None:
    """The lowest jax version the nearest project's own pins allow, or None."""
    directory = _project_directory(start)
    if directory is None:
        return None
    for label, requirements in _pins(directory):
        lowest = [
            (version, text)
            for text in requirements
            if (version := lowest_jax(text)) is not None
        ]
        if lowest:
            version, text = min(lowest)
            return TargetVersion(version, PIN, f"{label}: {text.split(';')[0].strip()}")
    return None


def _project_directory(start: Path) -> Path | None:
    start = start.absolute()
    for directory in (start, *start.parents) if start.is_dir() else start.parents:
        if (
            (directory / "pyproject.toml").is_file()
            or (directory / "setup.cfg").is_file()
            or _requirement_files(directory)
        ):
            return directory
    return None


def _requirement_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.glob("requirements*.txt") if p.is_file())
    except OSError:
        return []


def _pins(directory: Path) -> Iterator[tuple[str, list[str]]]:
    """(where, requirement strings) in the order they are asked; unreadable files say nothing."""
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        project = _toml(pyproject).get("project", {})
        if isinstance(project, dict):
            yield (
                f"{pyproject.name} [project] dependencies",
                _strings(project.get("dependencies")),
            )
            extras = project.get("optional-dependencies")
            if isinstance(extras, dict):
                yield (
                    f"{pyproject.name} [project.optional-dependencies]",
                    [r for v in extras.values() for r in _strings(v)],
                )
    for path in _requirement_files(directory):
        yield path.name, _requirement_lines(path)
    setup_cfg = directory / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(setup_cfg, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            return
        found = _cfg_lines(parser.get("options", "install_requires", fallback=""))
        if parser.has_section("options.extras_require"):
            found += [
                line
                for _, value in parser.items("options.extras_require")
                for line in _cfg_lines(value)
            ]
        yield setup_cfg.name, found


def _toml(path: Path) -> Mapping[str, Any]:
    try:
        return read_toml(path)
    except ConfigError:
        return {}


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _requirement_lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    lines = (line.split(" #", 1)[0].strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith(("#", "-"))]


def _cfg_lines(value: str) -> list[str]:
    return [
        line.strip()
        for line in value.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def lowest_jax(requirement: str) -> tuple[int, ...] | None:
    """The lowest jax release `requirement` allows, when it is a requirement on jax with a
    lower bound: `jax[cuda]>=0.12,<0.13` -> (0, 12); `jax==0.10.*` -> (0, 10); `jaxlib>=1` and
    `jax<0.13` -> None. A bound `>V` is taken as V (the release after it is not known here)."""
    match = _REQUIREMENT.match(requirement)
    if match is None or re.sub(r"[-_.]+", "-", match["name"]).lower() != "jax":
        return None
    rest = match["rest"].strip()
    if rest.startswith("@"):
        return None
    bounds = []
    for part in rest.strip("()").split(","):
        specifier = _SPECIFIER.match(part)
        if specifier is None or specifier["op"] in ("!=", "<", "<="):
            continue
        release = _RELEASE.match(specifier["version"])
        if release is not None:
            bounds.append(tuple(int(p) for p in release["release"].split(".")))
    return max(bounds) if bounds else None
