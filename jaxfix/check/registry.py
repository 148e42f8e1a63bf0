"""The one rule registry every caller reads: which modules are rules, each rule's manifest
(code, prefilter tokens, errors, settings and flags), the codes `--select` takes.

Importing a rule imports libcst (about half a second), which a run that parses nothing (no
file has a rule's tokens, or every candidate is cached) should not pay. So until the rules are
imported (`jaxfix.codemods.RULES`, which finds them with `builtin_modules` here), each rule
module's manifest attributes are read with `ast`; a test checks that this agrees with the
imported rules, and a module whose attributes are not plain literals makes this fall back to
importing them.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from jaxfix.check.byte_tokens import Words, tokens_match
from jaxfix.check.rule_modules import (
    CODEMODS,
    builtin_modules,
)
from jaxfix.settings.options import Options
from jaxfix.settings.rule_settings import RuleSetting

# The class attributes read without importing a rule.
_STATIC = (
    "code",
    "tokens",
    "raises",
    "raised_in",
    "error",
    "mesh_locals",
    "raises_since",
    "settings",
)
_KINDS = {"bool": bool, "str": str, "int": int, "list": list}  # a RuleSetting's kind
_SETTING_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSetting))


@dataclass(frozen=True)
class RuleEntry:
    """What the registry knows of a rule without importing it: its code, its prefilter token
    groups (`Rule.tokens`), what `jaxfix repair`'s recorder needs of it (the messages of its
    errors, `Rule.raises`, where JAX holds their meshes, `Rule.mesh_locals` as pairs, the
    exception, `Rule.error`), where JAX raises them (`Rule.raised_in`), whether the default
    selection takes it (`Rule.raises_since`), and its settings (`Rule.settings`, without their
    `parse`: the flags and the config's keys come from them)."""

    code: str
    tokens: tuple[tuple[bytes, ...], ...]
    raises: tuple[str, ...] = ()
    mesh_locals: tuple[tuple[str, str], ...] = ()
    raises_since: str | None = "0"
    error: str | tuple[str, ...] = "ValueError"
    raised_in: tuple[str, ...] = ()
    settings: tuple[RuleSetting, ...] = ()

    def may_apply(self, source: bytes | Words) -> bool:
        return tokens_match(self.tokens, source)


def _literal_setting(node: ast.expr) -> RuleSetting | None:
    """`RuleSetting(...)` with literal arguments (a builtin name for `kind`, anything for
    `parse`, which is left out), else None."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "RuleSetting"
    ):
        return None
    given = dict(zip(_SETTING_FIELDS, node.args))
    given.update((k.arg, k.value) for k in node.keywords if k.arg is not None)
    if len(node.args) > len(_SETTING_FIELDS) or len(given) != len(node.args) + len(
        node.keywords
    ):
        return None
    values = {}
    for name, value in given.items():
        if name == "parse":
            continue
        if name == "kind":
            if not isinstance(value, ast.Name) or value.id not in _KINDS:
                return None
            values[name] = _KINDS[value.id]
            continue
        try:
            values[name] = ast.literal_eval(value)
        except ValueError:
            return None
    try:
        return RuleSetting(**values)
    except TypeError:
        return None


def _literal(name: str, value: ast.expr) -> object:
    """The attribute's value; raises ValueError where it is not plain literals."""
    if name != "settings":
        return ast.literal_eval(value)
    if not isinstance(value, ast.Tuple):
        raise ValueError(name)
    settings = tuple(_literal_setting(element) for element in value.elts)
    if any(s is None for s in settings):
        raise ValueError(name)
    return settings


def _read_statically(path: Path) -> RuleEntry | None:
    """The one class in `path` that assigns literal `code` and `tokens` (and the other `_STATIC`
    attributes, which may be left out), else None."""
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
                    attributes[target.id] = _literal(target.id, value)
                except ValueError:
                    return None
        if attributes.keys() & {"code", "tokens"}:
            found.append(attributes)
    if len(found) != 1:
        return None
    code, tokens = found[0].get("code"), found[0].get("tokens")
    raises, mesh_locals = found[0].get("raises", ()), found[0].get("mesh_locals", {})
    raised_in = found[0].get("raised_in", ())
    raises_since = found[0].get("raises_since", "0")
    error = found[0].get("error", "ValueError")
    settings = found[0].get("settings", ())
    valid = (
        isinstance(code, str)
        and isinstance(tokens, tuple)
        and all(
            isinstance(group, tuple) and all(isinstance(t, bytes) for t in group)
            for group in tokens
        )
        and isinstance(raises, tuple)
        and all(isinstance(message, str) for message in raises)
        and isinstance(raised_in, tuple)
        and all(isinstance(path, str) for path in raised_in)
        and isinstance(mesh_locals, dict)
        and all(isinstance(x, str) for item in mesh_locals.items() for x in item)
        and (raises_since is None or isinstance(raises_since, str))
        and (
            isinstance(error, str)
            or (
                isinstance(error, tuple)
                and len(error) == len(raises)
                and all(isinstance(name, str) for name in error)
            )
        )
    )
    if not valid:
        return None
    return RuleEntry(
        code,
        tokens,
        raises,
        tuple(mesh_locals.items()),
        raises_since,
        error,
        raised_in,
        settings,
    )


def _from_rules(rules: dict) -> tuple[RuleEntry, ...]:
    return tuple(
        RuleEntry(
            code,
            rule.tokens,
            rule.raises,
            tuple(rule.mesh_locals.items()),
            rule.raises_since,
            rule.error,
            rule.raised_in,
            tuple(dataclasses.replace(s, parse=None) for s in rule.settings),
        )
        for code, rule in sorted(rules.items())
    )


@functools.cache
def _read_all_statically() -> tuple[RuleEntry, ...] | None:
    modules = [CODEMODS / f"{name}.py" for name in builtin_modules()]
    try:
        stats = [path.stat() for path in modules]
    except OSError:
        return None
    if not all(stat.S_ISREG(s.st_mode) for s in stats):
        return None  # a rule package: not read statically
    key = tuple((p.name, s.st_mtime_ns, s.st_size) for p, s in zip(modules, stats))
    kept = _kept_manifest(key)
    if kept is not None:
        return kept
    read = [_read_statically(path) for path in modules]
    if any(r is None for r in read) or len({r.code for r in read}) != len(read):
        return None
    manifest = tuple(sorted(read, key=lambda r: r.code))
    _keep_manifest(key, manifest)
    return manifest


# The manifest read from the rule modules, kept beside their bytecode (as Python keeps a .pyc:
# by the sources' modification times and sizes), so that a run does not parse every rule module.
_MANIFEST = CODEMODS / "__pycache__" / f"manifest.{sys.implementation.cache_tag}.pickle"


def _kept_manifest(key: object) -> tuple[RuleEntry, ...] | None:
    import pickle

    try:
        kept_key, manifest = pickle.loads(_MANIFEST.read_bytes())
    except Exception:  # noqa: BLE001  # absent, unreadable, from another version: read again
        return None
    return manifest if kept_key == key else None


def _keep_manifest(key: object, manifest: tuple[RuleEntry, ...]) -> None:
    import pickle

    if sys.dont_write_bytecode:
        return
    temporary = _MANIFEST.with_name(f"{_MANIFEST.name}.{os.getpid()}.tmp")
    try:
        _MANIFEST.parent.mkdir(exist_ok=True)
        temporary.write_bytes(pickle.dumps((key, manifest)))
        os.replace(temporary, _MANIFEST)
    except OSError:  # a read-only installation: read every time, as before
        temporary.unlink(missing_ok=True)


def all_rules() -> tuple[RuleEntry, ...]:
    """Every registered rule, sorted by code: from the imported rules once something imported
    them (they are paid for, and tests register extra rules), else read statically."""
    imported = sys.modules.get("jaxfix.codemods")
    if imported is None:
        static = _read_all_statically()
        if static is not None:
            return static
        from jaxfix.codemods import (
            RULES,  # not plain literals: the slow path just works
        )

        return _from_rules(RULES)
    return _from_rules(imported.RULES)


def builtin_rules() -> tuple[RuleEntry, ...]:
    """jaxfix's own rules: the flags and the default config keys come from these (a rule module
    from elsewhere is registered after the command line is read)."""
    own = set(_own_codes())
    return tuple(r for r in all_rules() if r.code in own)


def _own_codes() -> tuple[str, ...]:
    imported = sys.modules.get("jaxfix.codemods")
    if imported is not None:
        return tuple(sorted(imported.BUILTIN))
    static = _read_all_statically()
    if static is not None:
        return tuple(r.code for r in static)
    from jaxfix.codemods import BUILTIN

    return tuple(sorted(BUILTIN))


def codes_range() -> str:
    """The codes of the registered rules that name a JAX error (`Rule.raises`; a deprecation
    leaves no traceback), as help names them: each run of more than two consecutive codes by
    its ends (`JAX001-JAX005, JAX102`)."""
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


def check_codes(values: list[str], everything: str | None = None) -> tuple[str, ...]:
    """The codes or prefixes of `values` (comma-separated, any case), as `--select` and
    `--ignore` take them; ValueError for one no registered rule has."""
    codes = tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())
    for code in codes:
        if code != everything and not any(
            known.startswith(code) for known in rule_codes()
        ):
            raise ValueError(
                f"unknown rule code or prefix '{code}' (known: {', '.join(rule_codes())})"
            )
    return codes


def selected_rules(options: Options) -> tuple[RuleEntry, ...]:
    if options.rule_modules:  # rules from elsewhere: the registry imports them
        from jaxfix.codemods import load_rule_modules

        load_rule_modules(options.rule_modules)
    return tuple(r for r in all_rules() if options.is_selected(r.code, r.raises_since))
