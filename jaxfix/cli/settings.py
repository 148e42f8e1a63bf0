"""Merge config file values and command-line flags into one frozen Options."""

from __future__ import annotations

from pathlib import Path

import click

from jaxfix.config import Config, ConfigError, find_pyproject, load_config
from jaxfix.jax_version import installed_jax_version, parse_version
from jaxfix.options import DEFAULT_MAX_FILE_SIZE, KNOWN_PLATFORMS, Options
from jaxfix.prefilter import rule_codes


def split_codes(values: tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    codes = [c.strip().upper() for v in values or () for c in v.split(",") if c.strip()]
    return tuple(codes)


def check_codes(codes: tuple[str, ...], where: str) -> None:
    for code in codes:
        if not any(known.startswith(code) for known in rule_codes()):
            raise click.UsageError(f"{where}: unknown rule code or prefix '{code}' (known: {', '.join(rule_codes())})")


def check_platforms(platforms: tuple[str, ...], where: str) -> tuple[str, ...]:
    for platform in platforms:
        if platform not in KNOWN_PLATFORMS:
            raise click.UsageError(f"{where}: unknown platform '{platform}' (valid: {', '.join(KNOWN_PLATFORMS)})")
    return platforms


def load(config_file: Path | None, paths: list[Path]) -> Config:
    try:
        start = paths[0] if paths else Path.cwd()
        return load_config(config_file or find_pyproject(start))
    except ConfigError as error:
        raise click.UsageError(str(error)) from None


def build_options(config: Config, flags: dict) -> Options:
    """Flags override config; config overrides defaults."""
    values = config.values
    where = str(config.path) if config.path else "config"
    select = split_codes(flags["select"]) or split_codes(values.get("select"))
    ignore = split_codes(flags["ignore"]) or split_codes(values.get("ignore"))
    check_codes(select, "--select" if flags["select"] else where)
    check_codes(ignore, "--ignore" if flags["ignore"] else where)
    platforms = tuple(flags["platform"]) or tuple(values.get("platforms", ()))
    check_platforms(platforms, "--platform" if flags["platform"] else where)
    version_text = flags["jax_version"] or values.get("jax-version")
    try:
        jax_version = parse_version(version_text) if version_text else installed_jax_version()
    except ValueError as error:
        raise click.UsageError(f"{'--jax-version' if flags['jax_version'] else where}: {error}") from None
    return Options(
        select=select,
        ignore=ignore,
        unsafe_fixes=flags["unsafe_fixes"] or bool(values.get("unsafe-fixes", False)),
        platforms=platforms,
        fill_axis=flags["fill_axis"] or values.get("fill-axis"),
        jax_version=jax_version,
        exclude=tuple(flags["exclude"]) + tuple(values.get("exclude", ())),
        max_file_size=values.get("max-file-size", DEFAULT_MAX_FILE_SIZE),
    )
