"""The click side of `jaxfix/settings.py`: one decorator makes a command's flags from the table."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import click

from jaxfix.config import Config, build_options, load
from jaxfix.escaping import printable
from jaxfix.options import Options
from jaxfix.settings import SETTINGS, SettingError

F = TypeVar("F", bound=Callable[..., Any])


class SettingsProblem(click.ClickException):
    """A bad config key or setting value: one line, exit 2, without click's usage banner (the
    command line was fine, or its one bad value is named in the line)."""

    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"jaxfix: error: {self.format_message()}", file=file, err=True)


def setting_flags(command: str) -> Callable[[F], F]:
    """Every setting whose flag belongs to `command` (`settings.MAIN` or `settings.MIGRATE`),
    in table order; the callback receives them by their setting names."""

    def decorate(function: F) -> F:
        for setting in reversed([s for s in SETTINGS if command in s.commands]):
            kinds: dict[str, Any] = (
                {"is_flag": True, "default": False}
                if setting.kind is bool
                else {"multiple": True}
                if setting.kind is list
                else {"type": setting.kind}
            )
            function = click.option(
                *setting.flag_names,
                setting.name,
                help=setting.help,
                metavar=setting.metavar,
                **kinds,
            )(function)
        return function

    return decorate


def setting_values(params: Mapping[str, Any]) -> dict[str, Any]:
    """The settings among a command's parameters."""
    return {s.name: params[s.name] for s in SETTINGS if s.name in params}


def load_config(config_file: Path | None, paths: list[Path]) -> Config:
    try:
        return load(config_file, paths)
    except (
        SettingError
    ) as error:  # a key or path from a stranger's pyproject.toml may hold anything
        raise SettingsProblem(printable(str(error))) from None


def options_from(
    config: Config, flags: Mapping[str, Any], start: Sequence[Path] | None = None
) -> Options:
    """`build_options`, with its errors as usage errors."""
    try:
        return build_options(config, flags, start)
    except SettingError as error:
        raise SettingsProblem(printable(str(error))) from None
