"""The click side of `jaxfix/settings/table.py`: one decorator makes a command's flags from the table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

import click

from jaxfix.check.run import Run, build_run, check_flags
from jaxfix.ground.escaping import printable
from jaxfix.settings.table import FLAG_ONLY, SETTINGS, SettingError

F = TypeVar("F", bound=Callable[..., Any])


class SettingsProblem(click.ClickException):
    """A bad config key or setting value: one line, exit 2, without click's usage banner (the
    command line was fine, or its one bad value is named in the line)."""

    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"jaxfix: error: {self.format_message()}", file=file, err=True)


RULES_MARK = "{rules}"  # in a help text: the registered rules' codes, when it is shown


def with_rule_codes(text: str) -> str:
    from jaxfix.check.registry import codes_range

    return text.replace(RULES_MARK, codes_range())


class RulesHelpOption(click.Option):
    """An option whose help names the registered rules as they are when it is shown (rules
    registered from elsewhere included), not when the module was imported."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        template = self.help
        self.help = with_rule_codes(template or "")
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = template


class RulesHelpCommand(click.Command):
    """A command whose help text names the registered rules (see `RulesHelpOption`)."""

    def format_help_text(
        self, ctx: click.Context, formatter: click.HelpFormatter
    ) -> None:
        template = self.help
        self.help = with_rule_codes(template or "")
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = template

    def get_short_help_str(self, limit: int = 45) -> str:
        """The line `jaxfix --help` lists it with, the rules named there too."""
        template = self.help
        self.help = with_rule_codes(template or "")
        try:
            return super().get_short_help_str(limit)
        finally:
            self.help = template


def setting_flags(command: str) -> Callable[[F], F]:
    """Every setting whose flag belongs to `command` (`settings.MAIN` or `settings.MIGRATE`),
    in table order; the callback receives them by their setting names."""

    def decorate(function: F) -> F:
        for setting in reversed([s for s in SETTINGS if command in s.commands]):
            kinds: dict[str, Any] = (
                {
                    "is_flag": True,
                    "default": None,
                }  # None: not given, the config decides
                if setting.kind is bool
                else {"multiple": True}
                if setting.kind is list
                else {"type": setting.kind}
            )
            names = (
                # `--no-unsafe-fixes` as ruff's: turns off what the config turned on
                (f"{setting.flag_name}/--no-{setting.flag_name.removeprefix('--')}",)
                if setting.kind is bool
                else setting.flag_names
            )
            function = click.option(
                *names,
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


def register_rule_modules(params: Mapping[str, Any]) -> None:
    """Registers the `--rule-module` rules before the config is read (`--list-rules`,
    `--explain`, the help); `build_run` does it for a run."""
    setting = FLAG_ONLY["rule-modules"]
    if params.get(setting.name) and setting.parse:
        try:
            setting.parse(list(params[setting.name]))
        except ValueError as error:
            raise SettingsProblem(printable(f"{setting.flag_name}: {error}")) from None


def _note(note: str) -> None:
    click.echo(f"jaxfix: warning: {printable(note)}", err=True)


def build_run_from(
    paths: list[Path],
    flags: Mapping[str, Any],
    *,
    config_file: Path | None = None,
    project: list[Path] | None = None,
    whole_project: bool = True,
    cache: bool = False,
) -> Run:
    """`jaxfix.check.run.build_run`, the config's notes said on stderr and its errors as
    usage errors."""
    try:
        return build_run(
            paths,
            flags,
            config_file=config_file,
            project=project,
            whole_project=whole_project,
            cache=cache,
            warn=_note,
        )
    except (
        SettingError
    ) as error:  # a key or path from a stranger's pyproject.toml may hold anything
        raise SettingsProblem(printable(str(error))) from None


def check_flags_alone(flags: Mapping[str, Any]) -> None:
    """`jaxfix.check.run.check_flags`, its errors as usage errors."""
    try:
        check_flags(flags)
    except SettingError as error:
        raise SettingsProblem(printable(str(error))) from None
