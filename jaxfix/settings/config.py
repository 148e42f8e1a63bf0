"""`[tool.jaxfix]` in the nearest pyproject.toml, searched upward like ruff and black do."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from jaxfix.settings.options import DEFAULT_LINE_LENGTH, ImportOrder, Options
from jaxfix.settings.rule_settings import did_you_mean, kind_problem, rule_values
from jaxfix.settings.table import (
    ALIASES,
    BY_KEY,
    FLAG_ONLY,
    OF_RULES,
    SETTINGS,
    SettingError,
)
from jaxfix.settings.target_version import target_version
from jaxfix.settings.values import Config, ConfigError, read_toml


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.jaxfix] table, from `start` upward."""
    start = start.absolute()
    for directory in (start, *start.parents) if start.is_dir() else start.parents:
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and "jaxfix" in _tool_table(
            candidate, read_toml(candidate)
        ):
            return candidate
    return None


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
    data = read_toml(path)
    table = (
        _tool_table(path, data).get("jaxfix", {})
        if path.name == "pyproject.toml"
        else data
    )
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jaxfix] must be a table")
    if (
        "extend-exclude" in table
    ):  # ruff's key: here `exclude` never replaces the built-in skips
        extra, given = table.pop("extend-exclude"), table.get("exclude", [])
        if not isinstance(extra, list) or not isinstance(given, list):
            raise ConfigError(f"{path}: 'extend-exclude' and 'exclude' must be lists")
        table = {**table, "exclude": [*given, *extra]}
    for alias, key in ALIASES.items():
        if alias in table:
            if key in table:
                raise ConfigError(
                    f"{path}: '{alias}' and '{key}' in [tool.jaxfix] are one setting: keep '{key}'"
                )
            table = {(key if k == alias else k): v for k, v in table.items()}
    table, notes = _rule_tables(path, table)
    for key, value in table.items():
        if key == "rules":
            continue
        if key in FLAG_ONLY:
            raise ConfigError(
                f"{path}: '{key}' in [tool.jaxfix]: {FLAG_ONLY[key].not_in_config}"
            )
        if key not in BY_KEY:
            close = difflib.get_close_matches(key, [*BY_KEY, *ALIASES, "rules"], n=1)
            hint = (
                f"did you mean '{ALIASES.get(close[0], close[0])}'?"
                if close
                else f"known keys: {', '.join(sorted(BY_KEY))}"
            )
            raise ConfigError(f"{path}: unknown key '{key}' in [tool.jaxfix] ({hint})")
        setting = BY_KEY[key]
        problem = kind_problem(setting.kind, setting.expects, value, setting.most)
        if problem:
            raise ConfigError(f"{path}: '{key}' {problem}")
    return Config(path, dict(table), notes=notes)


def _rule_tables(
    path: Path, table: dict[str, Any]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """`[tool.jaxfix.rules.<CODE>]` tables, checked for shape (their keys are checked against
    the rules' settings once the rules are registered: `build_options`), with the old
    top-level keys of rule settings moved into them, each with a deprecation note."""
    rules = table.get("rules", {})
    if not isinstance(rules, dict) or not all(
        isinstance(v, dict) for v in rules.values()
    ):
        raise ConfigError(
            f"{path}: [tool.jaxfix.rules] must hold one table per rule code "
            f"([tool.jaxfix.rules.JAX001]), got {rules!r}"
        )
    rules = {code: dict(values) for code, values in rules.items()}
    notes = []
    for key, setting in OF_RULES.items():
        if key not in table:
            continue
        own = rules.setdefault(str(setting.rule), {})
        if key in own:
            raise ConfigError(
                f"{path}: '{key}' in [tool.jaxfix] and in [tool.jaxfix.rules.{setting.rule}] "
                f"are one setting: keep [tool.jaxfix.rules.{setting.rule}]'s"
            )
        own[key] = table[key]
        notes.append(
            f"{path}: '{key}' in [tool.jaxfix] is {setting.rule}'s setting: move it to "
            f"[tool.jaxfix.rules.{setting.rule}] (the old place still works)"
        )
    table = {k: v for k, v in table.items() if k not in OF_RULES}
    return ({**table, "rules": rules} if rules else table), tuple(notes)


def load(config_file: Path | None, paths: list[Path]) -> Config:
    """`config_file` if given, else the pyproject.toml found from the first path (or the cwd);
    the line length from the formatter's config found from there."""
    start = paths[0] if paths else Path.cwd()
    config = load_config(config_file or find_pyproject(start))
    return replace(
        config,
        line_length=line_length(config_file or start),
        import_order=import_order(config_file or start),
    )


def line_length(start: Path) -> int:
    """The line length the project's formatter uses, as ruff and black find it: from `start`
    upward, the first of ruff.toml / .ruff.toml (`line-length`), pyproject.toml's [tool.ruff]
    or [tool.black] that sets one; else 88. Unreadable files are skipped (they are not ours)."""
    start = start.absolute()
    for directory in (start, *start.parents) if start.is_dir() else start.parents:
        for name, table in (
            (".ruff.toml", ()),
            ("ruff.toml", ()),
            ("pyproject.toml", ("tool", "ruff")),
            ("pyproject.toml", ("tool", "black")),
        ):
            candidate = directory / name
            if not candidate.is_file():
                continue
            try:
                data = read_toml(candidate)
            except ConfigError:
                continue
            for key in table:
                data = data.get(key, {}) if isinstance(data, dict) else {}
            value = data.get("line-length") if isinstance(data, dict) else None
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return DEFAULT_LINE_LENGTH


def import_order(start: Path) -> ImportOrder:
    """ruff's isort settings that order imports, from the ruff config found as ruff finds it:
    from `start` upward, the first .ruff.toml, ruff.toml or pyproject.toml with [tool.ruff];
    its `[lint.isort]` (or the older `[isort]`) table. Values of the wrong type are ignored."""
    start = start.absolute()
    for directory in (start, *start.parents) if start.is_dir() else start.parents:
        for name, table in (
            (".ruff.toml", ()),
            ("ruff.toml", ()),
            ("pyproject.toml", ("tool", "ruff")),
        ):
            candidate = directory / name
            if not candidate.is_file():
                continue
            try:
                data: Any = read_toml(candidate)
            except ConfigError:
                continue
            for key in table:
                data = data.get(key) if isinstance(data, dict) else None
            if not isinstance(data, dict):
                continue
            lint = data.get("lint")
            isort = (lint.get("isort") if isinstance(lint, dict) else None) or data.get(
                "isort"
            )
            values = isort if isinstance(isort, dict) else {}
            given = {
                field: values[key]
                for field, key in (
                    ("force_sort_within_sections", "force-sort-within-sections"),
                    ("order_by_type", "order-by-type"),
                    ("case_sensitive", "case-sensitive"),
                    ("combine_as_imports", "combine-as-imports"),
                )
                if isinstance(values.get(key), bool)
            }
            return ImportOrder(**given)
    return ImportOrder()


# What marks a project's root directory when no config file does (issue 40: the project, not
# the paths given, is where the callers of a function are looked for).
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")


def project_root(config: Config, paths: list[Path]) -> Path:
    """The config file's directory; else the paths' common directory (the working directory
    when there are none, as for stdin without --stdin-filename)."""
    if config.path is not None:
        return config.path.absolute().parent
    directories = [
        str(p.absolute() if p.is_dir() else p.absolute().parent) for p in paths
    ]
    return Path(os.path.commonpath(directories)) if directories else Path.cwd()


def scope_root(config: Config, paths: list[Path]) -> Path:
    """The root of the project the paths are in, where the callers of a function are looked
    for: the config file's directory; else the nearest directory at or above the paths'
    common directory that holds one of `PROJECT_MARKERS`; else the directory above the
    top-most package holding that common directory (Python's rule for code run from the
    tree), or the common directory itself. So `jaxfix pkg/`, `jaxfix pkg/a.py` and
    `jaxfix .` share one project. (Imports are still looked for from `project_roots`.)"""
    common = project_root(config, paths)
    if config.path is not None:
        return common
    for directory in (common, *common.parents):
        if any(os.path.lexists(directory / marker) for marker in PROJECT_MARKERS):
            return directory
    while (common / "__init__.py").is_file() and common.parent != common:
        common = common.parent
    return common


def project_roots(config: Config, paths: list[Path]) -> tuple[Path, ...]:
    """Where `import a.b` is looked up among the project's files besides the importer's own
    package (see jaxfix/analysis/project.py), like ruff's `src`: the config's `src` directories,
    relative to its file; by default the project root. Each is searched with its `src/`."""
    root = project_root(config, paths)
    return tuple(
        dict.fromkeys(
            Path(os.path.abspath(root / directory))
            for directory in config.values.get("src", ["."])
        )
    )


def _given(value: Any) -> bool:
    """A flag's value was given: a switch's False is its `--no-` form."""
    return value is not None and (isinstance(value, bool) or value not in ((), []))


def _rule_settings(
    config: Config, flags: Mapping[str, Any], where: str
) -> dict[str, dict[str, Any]]:
    """Each rule's settings from its config table, then from the flags that set them; checked
    against what the rule declares (importing the rules only when some are given)."""
    tables = dict(config.values.get("rules", {}))
    given = {
        s.rule: {s.key: list(flags[s.name])}
        if s.kind is list
        else {s.key: flags[s.name]}
        for s in OF_RULES.values()
        if _given(flags.get(s.name)) and s.rule
    }
    if not tables and not given:
        return {}
    from jaxfix.codemods import RULES

    found: dict[str, dict[str, Any]] = {}
    for code, table in sorted(tables.items()):
        if code not in RULES:
            raise SettingError(
                f"{where}: unknown rule '{code}' in [tool.jaxfix.rules] "
                f"({did_you_mean(code, RULES, 'rules')})"
            )
        try:
            found[code] = rule_values(code, RULES[code].settings, table, where)
        except ValueError as error:
            raise SettingError(str(error)) from None
    for code, values in given.items():
        flag = OF_RULES[next(iter(values))].flag_name
        try:
            found.setdefault(code, {}).update(
                rule_values(code, RULES[code].settings, values, flag)
            )
        except ValueError as error:
            raise SettingError(
                str(error).replace(f" in [tool.jaxfix.rules.{code}]", "")
            ) from None
    return {code: found[code] for code in sorted(found) if found[code]}


def build_options(
    config: Config, flags: Mapping[str, Any], start: Sequence[Path] | None = None
) -> Options:
    """Flags override config, config overrides defaults (`extend` settings add up).

    `flags` maps setting names to command-line values; missing names count as not given.
    `start`: the paths checked, whose project's jax pin is the default target version (None:
    no pin is looked for; see jaxfix/settings/target_version.py).
    """
    where = str(config.path) if config.path else "config"
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        if not setting.in_options:
            continue
        flag, configured = flags.get(setting.name), config.values.get(setting.key)
        if setting.extend:
            sources = [
                (list(flag or ()), setting.flag_name),
                (list(configured or ()), where),
            ]
        else:
            sources = (
                [(flag, setting.flag_name)]
                if _given(flag)
                else [(configured, where)]
                if configured is not None
                else []
            )
        value: Any = None
        for raw, origin in sources:
            raw = list(raw) if isinstance(raw, tuple) else raw
            try:
                parsed = setting.parse(raw) if setting.parse else raw
            except ValueError as error:
                raise SettingError(f"{origin}: {error}") from None
            value = (
                [*value, *parsed] if setting.extend and value is not None else parsed
            )
        if value is None and setting.default:
            value = setting.default()
        if value is not None:
            values[setting.name] = tuple(value) if setting.kind is list else value
    values["rule_settings"] = _rule_settings(config, flags, where)
    try:
        target = target_version(config, flags.get("target_version"), start)
    except ValueError as error:
        raise SettingError(str(error)) from None
    return Options(
        **values,
        jax_version=target.version,
        line_length=config.line_length,
        import_order=config.import_order,
    )
