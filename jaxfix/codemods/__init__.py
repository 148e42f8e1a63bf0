"""The imported rules: jaxfix's own (every `jaxNNN_*.py` module here defines exactly one Rule;
which modules those are, and what each declares without importing it, is the registry's,
jaxfix/check/registry.py), and rule modules from elsewhere, registered by name or path (`--rule-module`) as
pytest takes plugins with `-p`: a rule outside jaxfix is one module and its fixtures.

Only the command line (or a program calling `load_rule_modules`) names such modules, never a
config file: a pyproject.toml may come with a stranger's pull request, and jaxfix alone never
runs the user's code.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from jaxfix.check.rule_modules import RULE_MODULE, builtin_modules
from jaxfix.codemods.base import Rule


class RuleModuleError(ImportError):
    """A rule module that cannot be registered; the message is one line naming it."""


def _rules_in(module: ModuleType) -> type[Rule]:
    defined = [
        v
        for v in vars(module).values()
        if isinstance(v, type)
        and issubclass(v, Rule)
        and v is not Rule
        and v.__module__ == module.__name__
    ]
    if len(defined) != 1:
        raise RuleModuleError(
            f"{module.__name__} must define exactly one Rule, found {len(defined)}"
        )
    return defined[0]


def _register(rules: dict[str, type[Rule]], rule: type[Rule]) -> type[Rule]:
    """The rule now registered for `rule.code`: one file imported under two names (by path,
    then by package) is one rule, the first class kept."""
    known = rules.get(rule.code)
    if known is not None and known is not rule:
        if known.__module__ in sys.modules and _source(known) == _source(rule):
            return known
        raise RuleModuleError(
            f"rule code {rule.code} is defined twice ({known.__module__}, {rule.__module__})"
        )
    rules[rule.code] = rule
    return rule


def _load_rules() -> dict[str, type[Rule]]:
    rules: dict[str, type[Rule]] = {}
    for name in builtin_modules():
        _register(rules, _rules_in(importlib.import_module(f"{__name__}.{name}")))
    return rules


# Both are loaded when first asked for (`__getattr__`): jaxfix's own rule modules may import
# LibCST, which a rule over `ast` (importing jaxfix.codemods.base) does not need.
RULES: dict[str, type[Rule]]  # every registered rule by its code
BUILTIN: frozenset[str]  # jaxfix's own codes


def _registry() -> dict[str, type[Rule]]:
    if "RULES" not in globals():
        rules = _load_rules()
        globals().update(RULES=rules, BUILTIN=frozenset(rules))
    registered: dict[str, type[Rule]] = globals()["RULES"]
    return registered


def __getattr__(name: str) -> object:
    if name in ("RULES", "BUILTIN"):
        _registry()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_LOADED: dict[str, tuple[type[Rule], ...]] = {}  # spec -> its rules


def _module_from_file(path: Path) -> ModuleType:
    """The module of `path`: the one already imported from it (a test that imported the rule
    by its package name gets the same class), else imported under a name of its own."""
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve() == path:
            return module
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:10]
    name = f"jaxfix_rule_module_{digest}.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RuleModuleError(f"rule module {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def is_path(spec: str) -> bool:
    """Whether `spec` names a file or directory rather than a module."""
    return spec.endswith(".py") or "/" in spec or "\\" in spec or Path(spec).is_dir()


def _modules_of(spec: str) -> list[ModuleType]:
    """The rule modules `spec` names: a `.py` file, a directory of rule modules, a module, or a
    package (its submodules named like rule modules)."""
    if is_path(spec):
        path = Path(spec).resolve()
        if path.is_dir():
            files = sorted(p for p in path.glob("*.py") if RULE_MODULE.match(p.stem))
            return [_module_from_file(p) for p in files]
        if not path.is_file():
            raise RuleModuleError(f"rule module {spec}: no such file or directory")
        return [_module_from_file(path)]
    module = importlib.import_module(spec)
    if not hasattr(module, "__path__"):
        return [module]
    return [
        importlib.import_module(f"{module.__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name)
        if RULE_MODULE.match(info.name)
    ]


def load_rule_modules(specs: Iterable[str]) -> tuple[type[Rule], ...]:
    """Registers the rules of each spec (see `_modules_of`; paths relative to the working
    directory) and returns them; a spec registered before is not imported again. Raises
    `RuleModuleError` with one line for a module that cannot be imported or registered."""
    loaded: list[type[Rule]] = []
    for spec in specs:
        if spec in _LOADED:  # registered again where a caller took them out
            loaded += [_register(_registry(), rule) for rule in _LOADED[spec]]
            continue
        try:
            modules = _modules_of(spec)
        except RuleModuleError:
            raise
        except Exception as error:  # the module's own error, on one line
            message = str(error).splitlines()[0] if str(error) else ""
            raise RuleModuleError(
                f"rule module {spec}: {type(error).__name__}: {message}"
            ) from None
        rules = [_register(_registry(), _rules_in(module)) for module in modules]
        _LOADED[spec] = tuple(rules)
        loaded += rules
    return tuple(loaded)


def _source(rule: type[Rule]) -> Path:
    return Path(sys.modules[rule.__module__].__file__ or "").resolve()


def rule_sources(specs: Iterable[str]) -> tuple[Path, ...]:
    """The files the rules of `specs` came from (those registered: a run registers them before it
    asks): the result cache keys on their content, as it does on jaxfix's own source."""
    return tuple(
        sorted({_source(rule) for spec in specs for rule in _LOADED.get(spec, ())})
    )
