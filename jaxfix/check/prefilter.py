"""The prefilter on raw bytes, usable without importing the rules.

Importing a rule imports libcst (about half a second), which a run that parses nothing (no
file has a rule's tokens, or every candidate is cached) should not pay. So unless the registry
is already imported, each rule module's `code` and `tokens` class attributes are read with
`ast`; a test checks that this agrees with the registry, and a module whose attributes are not
plain literals makes this fall back to importing the registry.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from jaxfix.check.byte_tokens import Words, tokens_match
from jaxfix.settings.options import Options

CODEMODS = Path(__file__).resolve().parents[1] / "codemods"
_RULE_MODULE = re.compile(
    r"jax\d{3}_\w+(\.py)?$"
)  # what jaxfix/codemods/__init__.py registers


# The class attributes read without importing a rule.
_STATIC = ("code", "tokens", "raises", "error", "mesh_locals", "raises_since")


@dataclass(frozen=True)
class RuleTokens:
    """A rule's code, its prefilter token groups (see `Rule.tokens`), and what `jaxfix
    repair`'s recorder needs of it: the messages of its errors (`Rule.raises`) and where JAX
    holds their meshes (`Rule.mesh_locals`, as pairs), the exception they are raised with
    (`Rule.error`); and whether the default selection takes it (`Rule.raises_since`)."""

    code: str
    tokens: tuple[tuple[bytes, ...], ...]
    raises: tuple[str, ...] = ()
    mesh_locals: tuple[tuple[str, str], ...] = ()
    raises_since: str | None = "0"
    error: str = "ValueError"

    def may_apply(self, source: bytes | Words) -> bool:
        return tokens_match(self.tokens, source)


def _read_statically(path: Path) -> RuleTokens | None:
    """The one class in `path` that assigns literal `code` and `tokens` (and `raises`,
    `error`, `mesh_locals` and `raises_since`, which may be left out), else None."""
    found = []
    for node in ast.parse(path.read_bytes(), filename=str(path)).body:
        if not isinstance(node, ast.ClassDef):
            continue
        attributes = {}
        for statement in node.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value = statement.targets[0], statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                target, value = statement.target, statement.value
            else:
                continue
            if isinstance(target, ast.Name) and target.id in _STATIC:
                try:
                    attributes[target.id] = ast.literal_eval(value)
                except ValueError:
                    return None
        if attributes.keys() & {"code", "tokens"}:
            found.append(attributes)
    if len(found) != 1:
        return None
    code, tokens = found[0].get("code"), found[0].get("tokens")
    raises, mesh_locals = found[0].get("raises", ()), found[0].get("mesh_locals", {})
    raises_since = found[0].get("raises_since", "0")
    error = found[0].get("error", "ValueError")
    valid = (
        isinstance(code, str)
        and isinstance(tokens, tuple)
        and all(
            isinstance(group, tuple) and all(isinstance(t, bytes) for t in group)
            for group in tokens
        )
        and isinstance(raises, tuple)
        and all(isinstance(message, str) for message in raises)
        and isinstance(mesh_locals, dict)
        and all(isinstance(x, str) for item in mesh_locals.items() for x in item)
        and (raises_since is None or isinstance(raises_since, str))
        and isinstance(error, str)
    )
    if not valid:
        return None
    return RuleTokens(
        code, tokens, raises, tuple(mesh_locals.items()), raises_since, error
    )


def _from_registry(rules: dict) -> tuple[RuleTokens, ...]:
    return tuple(
        RuleTokens(
            code,
            rule.tokens,
            rule.raises,
            tuple(rule.mesh_locals.items()),
            rule.raises_since,
            rule.error,
        )
        for code, rule in sorted(rules.items())
    )


@functools.cache
def _read_all_statically() -> tuple[RuleTokens, ...] | None:
    modules = sorted(p for p in CODEMODS.iterdir() if _RULE_MODULE.match(p.name))
    if any(not p.name.endswith(".py") for p in modules):
        return None  # a rule package: not read statically
    read = [_read_statically(path) for path in modules]
    if any(r is None for r in read) or len({r.code for r in read}) != len(read):
        return None
    return tuple(sorted(read, key=lambda r: r.code))


def all_rules() -> tuple[RuleTokens, ...]:
    """Every registered rule, sorted by code: from the registry once something imported it (it
    is paid for, and tests register extra rules in it), else read statically."""
    registry = sys.modules.get("jaxfix.codemods")
    if registry is None:
        static = _read_all_statically()
        if static is not None:
            return static
        from jaxfix.codemods import (
            RULES,  # not plain literals: the slow path just works
        )

        return _from_registry(RULES)
    return _from_registry(registry.RULES)


def codes_range() -> str:
    """The codes of the registered rules that name a JAX error (`Rule.raises`; a deprecation
    leaves no traceback), as help names them: each run of more than two consecutive
    codes by its ends (`JAX001-JAX005, JAX102`)."""
    return ", ".join(_code_runs())


def codes_listed(last: str = " or ") -> str:
    """The codes of the registered rules that name a JAX error, as a sentence lists them
    (`JAX001-JAX005 or JAX102`): what a log or a recording can show."""
    runs = _code_runs()
    return f"{', '.join(runs[:-1])}{last}{runs[-1]}" if len(runs) > 1 else "".join(runs)


def _code_runs() -> list[str]:
    groups: list[list[str]] = []
    for code in (r.code for r in all_rules() if r.raises):
        previous = groups[-1][-1] if groups else ""
        if previous[:3] == code[:3] and int(previous[3:]) + 1 == int(code[3:]):
            groups[-1].append(code)
        else:
            groups.append([code])
    return [
        run
        for group in groups
        for run in ([f"{group[0]}-{group[-1]}"] if len(group) > 2 else group)
    ]


def rule_codes() -> tuple[str, ...]:
    return tuple(r.code for r in all_rules())


def selected_rules(options: Options) -> tuple[RuleTokens, ...]:
    if options.rule_modules:  # rules from elsewhere: the registry reads them
        from jaxfix.codemods import load_rule_modules

        load_rule_modules(options.rule_modules)
    return tuple(r for r in all_rules() if options.is_selected(r.code, r.raises_since))


def is_candidate(source: bytes, rules: tuple[RuleTokens, ...]) -> bool:
    """Whether any of `rules` could fire on `source`: if not, the file needs no parsing."""
    words = Words(source)
    return any(rule.may_apply(words) for rule in rules)
