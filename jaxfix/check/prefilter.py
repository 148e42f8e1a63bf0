"""The prefilter on raw bytes: whether any selected rule's tokens occur in a file, from the
registry's manifest (jaxfix/check/registry.py), so that a file no rule can fire on is never
parsed and a run that parses nothing never imports the rules (libcst)."""

from __future__ import annotations

from jaxfix.check.byte_tokens import Words
from jaxfix.check.registry import RuleEntry


def is_candidate(source: bytes, rules: tuple[RuleEntry, ...]) -> bool:
    """Whether any of `rules` could fire on `source`: if not, the file needs no parsing."""
    words = Words(source)
    return any(rule.may_apply(words) for rule in rules)


def candidate_codes(source: bytes, rules: tuple[RuleEntry, ...]) -> tuple[str, ...]:
    """The codes of the `rules` that could fire on `source` (none: no parsing needed), each
    tested on one `Words`: what the engine runs on it, without testing them again."""
    words = Words(source)
    return tuple(rule.code for rule in rules if rule.may_apply(words))
