"""A rule's own settings, as Fixit's rules declare theirs: each rule lists them in its class
(`Rule.settings`), a config gives them in `[tool.jaxfix.rules.<CODE>]`, a setting with a `flag`
is also a command-line flag, and they are checked with the words the global settings use
(jaxfix/settings/config.py). A leaf module: the rules, the
config reader and the settings table all read it.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RuleSetting:
    key: str  # in `[tool.jaxfix.rules.<CODE>]`
    kind: type  # bool, str, int, or list (of strings)
    default: Any  # when no config or flag gives it
    help: str
    expects: str  # for errors: "'<key>' must be <expects>"
    parse: Callable[[Any], Any] | None = None  # checks and converts; raises ValueError
    # The command-line flag that sets it (`--platform`), or None for config only: the settings
    # table makes one row of it (jaxfix/settings/table.py), its help this `help`.
    flag: str | None = None
    metavar: str | None = None  # the flag's value in help (`NAME`)


def kind_problem(
    kind: type, expects: str, value: Any, most: int | None = None
) -> str | None:
    """What is wrong with a config value of a setting of this kind (`must be ...`), or None:
    one text for global and rule settings alike. `most`: the largest int it takes."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        return f"must be {expects}, got {value!r}"
    if kind is list and not all(isinstance(v, str) for v in value):
        return f"must be {expects} (strings), got {value!r}"
    if kind is int and value < 1:
        return f"must be {expects} (at least 1), got {value!r}"
    if kind is int and most is not None and value > most:
        return f"must be {expects} (at most {most}), got {value!r}"
    return None


def did_you_mean(name: str, known: Iterable[str], what: str) -> str:
    """`did you mean 'x'?`, else the known names."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1)
    return (
        f"did you mean '{close[0]}'?"
        if close
        else f"known {what}: {', '.join(known) or 'none'}"
    )


def rule_values(
    code: str,
    declared: tuple[RuleSetting, ...],
    given: Mapping[str, Any],
    where: str,
) -> dict[str, Any]:
    """The values of `given` (a `[tool.jaxfix.rules.<CODE>]` table, or a flag's value by key),
    checked and parsed; ValueError with one line naming `where` for a key the rule does not
    declare or a value of the wrong kind."""
    by_key = {s.key: s for s in declared}
    table = f"[tool.jaxfix.rules.{code}]"
    values = {}
    for key, value in given.items():
        setting = by_key.get(key)
        if setting is None:
            raise ValueError(
                f"{where}: unknown key '{key}' in {table} ({did_you_mean(key, by_key, 'keys')})"
            )
        problem = kind_problem(setting.kind, setting.expects, value)
        if problem:
            raise ValueError(f"{where}: '{key}' in {table} {problem}")
        try:
            values[key] = setting.parse(value) if setting.parse else value
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        if isinstance(values[key], list):
            values[key] = tuple(values[key])
    return values
