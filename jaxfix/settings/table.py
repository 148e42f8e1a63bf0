"""Every setting read from `[tool.jaxfix]` and the command line, declared once.

One row per setting: its config key (and so its flag, `--<key>`), its type, its help, which
commands take it as a flag, and how its value is checked; a rule's own flags are rows made from
what the rule declares (`RuleSetting.flag`, read through jaxfix/check/registry.py). The config reader validates keys
with this table, the click decorator in `jaxfix/cli/flags.py` makes the flags from it, and
`jaxfix.settings.config.build_options` turns config + flags into `Options`. Adding a setting is adding a row (and,
if the engine reads it, an `Options` field of the same name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxfix.check.registry import builtin_rules, check_codes
from jaxfix.settings.host_devices import parse_host_devices
from jaxfix.settings.options import (
    ALL,
    DEFAULT_MAX_FILE_SIZE,
    DEFAULT_MAX_LOG_SIZE,
    DEFAULT_MAX_PARSE_MEMORY,
)
from jaxfix.sources.paths import DEFAULT_INCLUDE

MAIN, MIGRATE = "jaxfix", "migrate"  # the commands a setting's flag belongs to


class SettingError(ValueError):
    """A value no setting accepts; the message names where it came from."""


def _rule_modules(values: list[str]) -> tuple[str, ...]:
    """Registers the rule modules (jaxfix/codemods/__init__.py), paths made absolute."""
    from jaxfix.codemods import RuleModuleError, is_path, load_rule_modules

    specs = tuple(
        str(Path(v).resolve()) if is_path(v) else v for v in dict.fromkeys(values)
    )
    try:
        load_rule_modules(specs)
    except RuleModuleError as error:
        raise ValueError(str(error)) from None
    return specs


@dataclass(frozen=True)
class Setting:
    key: str  # config key; the flag is `--<key>` unless `flag` says otherwise
    kind: (
        type  # bool (a switch), str, int, or list (a repeatable flag, a list in config)
    )
    help: str
    expects: str  # for config errors: "'<key>' must be <expects>"
    commands: tuple[str, ...] = (
        MAIN,
        MIGRATE,
    )  # where it is a flag; () for config only
    flag: str | None = None
    metavar: str | None = None
    parse: Callable[[Any], Any] | None = None  # checks and converts; raises ValueError
    default: Callable[[], Any] | None = (
        None  # when neither config nor flag gives a value
    )
    extend: bool = False  # flag values add to the config's instead of replacing them
    in_options: bool = (
        True  # an `Options` field named `name`; False: read by the CLI itself
    )
    aliases: tuple[str, ...] = ()  # older keys (and so flags) accepted for this one
    # The rule whose setting of the same key the flag sets (`Rule.settings`): its value is
    # that rule's, its config key `[tool.jaxfix.rules.<rule>]`; the top-level key still works.
    rule: str | None = None
    # Why a config file may not set it (a flag only), or None: the config reader says so.
    not_in_config: str | None = None
    most: int | None = (
        None  # the largest int it takes (a size jaxfix allocates or reads)
    )

    @property
    def name(self) -> str:
        """The Python name: the `Options` field and the click parameter."""
        return self.key.replace("-", "_")

    @property
    def flag_name(self) -> str:
        return self.flag or f"--{self.key}"

    @property
    def flag_names(self) -> tuple[str, ...]:
        return (self.flag_name, *(f"--{alias}" for alias in self.aliases))


def _of_rules() -> tuple[Setting, ...]:
    """A row for each flag jaxfix's own rules declare (`RuleSetting.flag`), from the registry."""
    return tuple(
        Setting(
            s.key,
            s.kind,
            s.help,
            s.expects,
            flag=s.flag,
            metavar=s.metavar,
            in_options=False,
            rule=rule.code,
        )
        for rule in builtin_rules()
        for s in rule.settings
        if s.flag
    )


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "rule-modules",
        list,
        "Also run the rules of this module, package, .py file or directory of rule modules "
        "(repeatable); see CONTRIBUTING.md.",
        "a list of module names or paths",
        flag="--rule-module",
        metavar="MODULE",
        parse=_rule_modules,
        not_in_config="a config file cannot make jaxfix import code: give --rule-module",
    ),
    Setting(
        "select",
        list,
        "Rule codes or prefixes to run (comma-separated), ALL for every rule. Default: the "
        "rules whose old code raises on the target JAX version (not the deprecations).",
        "a list of rule codes or prefixes, or ALL",
        metavar="CODES",
        parse=lambda values: check_codes(values, everything=ALL),
    ),
    Setting(
        "ignore",
        list,
        "Rule codes or prefixes to skip (comma-separated).",
        "a list of rule codes or prefixes",
        metavar="CODES",
        parse=check_codes,
    ),
    Setting("unsafe-fixes", bool, "Also apply fixes marked unsafe.", "true or false"),
    Setting(
        "host-devices",
        int,
        "The number of devices the checked program sees where it runs (jax.device_count()): "
        "a size computed from the host is then reported where it raises there, never fixed. "
        "Default: not known (jaxfix never guesses it from its own environment).",
        "a device count",
        commands=(MAIN,),
        metavar="N",
        parse=parse_host_devices,
        not_in_config="where the program runs is not the project's to say: give "
        "--host-devices",
    ),
    *_of_rules(),
    Setting(
        "target-version",
        str,
        "JAX version the code targets. Default: the config's, else the lowest the project's jax "
        "pin allows (pyproject.toml, requirements*.txt, setup.cfg), else the installed jax, else the newest.",
        'a version string such as "0.10.2"',
        metavar="VERSION",
        aliases=("jax-version",),
        in_options=False,
    ),
    Setting(
        "exclude",
        list,
        "Glob of paths to skip (repeatable); explicit paths are always processed.",
        "a list of glob patterns",
        commands=(MAIN,),
        metavar="GLOB",
        extend=True,
    ),
    Setting(
        "strict",
        bool,
        "Report syntax errors in every file found, also where no rule applies (slower: parses them all).",
        "true or false",
        commands=(MAIN,),
        in_options=False,
    ),
    Setting(
        "include",
        list,
        "",
        "a list of glob patterns",
        commands=(),
        default=lambda: DEFAULT_INCLUDE,
    ),
    Setting("extend-include", list, "", "a list of glob patterns", commands=()),
    Setting(
        "max-file-size",
        int,
        "",
        "a number of bytes",
        commands=(),
        default=lambda: DEFAULT_MAX_FILE_SIZE,
        most=2**30,  # a file is read whole: a larger bound is a read that cannot be had
    ),
    Setting(
        "max-log-size",
        int,
        "",
        "a number of bytes",
        commands=(),
        default=lambda: DEFAULT_MAX_LOG_SIZE,
    ),
    Setting(
        "max-parse-memory",
        int,
        "",
        "a number of megabytes",
        commands=(),
        default=lambda: DEFAULT_MAX_PARSE_MEMORY,
    ),
    Setting(
        "src",
        list,
        "",
        "a list of directories (relative to this file)",
        commands=(),
        in_options=False,
    ),
    Setting(
        "output-file",
        str,
        "Write what goes to stdout (diagnostics, diffs, a --format document) to FILE instead, atomically.",
        "a file path",
        commands=(MAIN,),
        metavar="FILE",
        in_options=False,
        not_in_config="a config file may come with a pull request and cannot choose where "
        "jaxfix writes: give --output-file",
    ),
    Setting(
        "cache-dir",
        str,
        "Where the result cache lives (default: .jaxfix_cache/ in the project root).",
        "a directory (relative to this file)",
        commands=(MAIN,),
        metavar="DIR",
        in_options=False,
    ),
)
BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS if s.not_in_config is None}
FLAG_ONLY: dict[str, Setting] = {s.key: s for s in SETTINGS if s.not_in_config}
OF_RULES: dict[str, Setting] = {s.key: s for s in SETTINGS if s.rule}
ALIASES: dict[str, str] = {alias: s.key for s in SETTINGS for alias in s.aliases}
