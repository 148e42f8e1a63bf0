"""The rule registry: every `jaxNNN_*.py` module here defines exactly one Rule."""

from __future__ import annotations

import importlib
import pkgutil
import re

from jaxfix.codemods.base import Rule

_RULE_MODULE = re.compile(r"jax\d{3}_\w+$")


def _load_rules() -> dict[str, type[Rule]]:
    rules: dict[str, type[Rule]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not _RULE_MODULE.match(info.name):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        defined = [
            v
            for v in vars(module).values()
            if isinstance(v, type)
            and issubclass(v, Rule)
            and v is not Rule
            and v.__module__ == module.__name__
        ]
        if len(defined) != 1:
            raise ImportError(
                f"{module.__name__} must define exactly one Rule, found {len(defined)}"
            )
        rule = defined[0]
        if rule.code in rules:
            raise ImportError(
                f"rule code {rule.code} is defined twice ({rules[rule.code].__module__}, {module.__name__})"
            )
        rules[rule.code] = rule
    return rules


RULES: dict[str, type[Rule]] = _load_rules()
