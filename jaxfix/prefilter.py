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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jaxfix.options import Options

CODEMODS = Path(__file__).resolve().parent / "codemods"
_RULE_MODULE = re.compile(r"jax\d{3}_\w+(\.py)?$")  # what jaxfix/codemods/__init__.py registers


_WORDS = re.compile(rb"\w+(?:\|\w+)*")  # `A|B|C` of plain words: a substring test does it
_WORD_CHARACTER = re.compile(rb"\w")
_QUANTIFIERS = b"?*+{"
_REPEAT = re.compile(rb"\{\d*(?:,\d*)?\}")


class _Words:
    """Which words a file's bytes contain, each looked up once per file (several rules' tokens
    share words); a word containing a word known to be absent is absent without a scan."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.present: set[bytes] = set()
        self.absent: list[bytes] = []

    def __contains__(self, word: bytes) -> bool:
        if word in self.present:
            return True
        for missing in self.absent:
            if missing in word:
                return False
        if word in self.source:
            self.present.add(word)
            return True
        self.absent.append(word)
        return False


def _required_words(token: bytes) -> tuple[bytes, ...]:
    """Literal words every match of the regular expression `token` contains: the runs of word
    characters outside groups and classes (less a quantified last character), when the pattern
    has no top-level `|` and no flag that changes how literals match. May be empty."""
    if re.compile(token).flags & (re.IGNORECASE | re.VERBOSE):
        return ()
    words, run, depth, index = [], b"", 0, 0
    while index < len(token):
        char = token[index:index + 1]
        if depth == 0 and _WORD_CHARACTER.fullmatch(char):
            run += char
            index += 1
            continue
        if run:
            words.append(run[:-1] if char and char in _QUANTIFIERS else run)
            run = b""
        if char == b"\\":
            index += 2
            continue
        if char == b"[":  # a class: up to its closing bracket (which may come first, or be escaped)
            index += 2 if token[index + 1:index + 2] == b"^" else 1
            index += 1 if token[index:index + 1] == b"]" else 0
            while index < len(token) and token[index:index + 1] != b"]":
                index += 2 if token[index:index + 1] == b"\\" else 1
        elif char == b"{" and (repeat := _REPEAT.match(token, index)):
            index = repeat.end() - 1
        elif char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
        elif char == b"|" and depth == 0:
            return ()
        index += 1
    if run:
        words.append(run)
    return tuple(dict.fromkeys(word for word in words if word))


@functools.cache
def _matcher(token: bytes) -> Callable[[_Words], bool]:
    """`token` as a test on a file's words: `in` for plain words (several times faster than
    `re.search` on an alternation, which most files fail), else the regular expression, tried
    only when the words it cannot match without are there."""
    if _WORDS.fullmatch(token):
        alternatives = token.split(b"|")
        return lambda words: any(word in words for word in alternatives)
    pattern, required = re.compile(token), _required_words(token)
    return lambda words: all(word in words for word in required) and pattern.search(words.source) is not None


@functools.cache
def _group_matchers(tokens: tuple[tuple[bytes, ...], ...]) -> tuple[tuple[Callable[[_Words], bool], ...], ...]:
    return tuple(tuple(_matcher(token) for token in group) for group in tokens)


def tokens_match(tokens: tuple[tuple[bytes, ...], ...], source: bytes | _Words) -> bool:
    """Whether, for some group, every token (a bytes regular expression) matches in `source`."""
    words = source if isinstance(source, _Words) else _Words(source)
    for group in _group_matchers(tokens):
        for matches in group:  # loops, not any(all(...)): this runs for every file of every run
            if not matches(words):
                break
        else:
            return True
    return False


@dataclass(frozen=True)
class RuleTokens:
    """A rule's code and its prefilter token groups (see `Rule.tokens`)."""

    code: str
    tokens: tuple[tuple[bytes, ...], ...]

    def may_apply(self, source: bytes | _Words) -> bool:
        return tokens_match(self.tokens, source)


def _read_statically(path: Path) -> RuleTokens | None:
    """The one class in `path` that assigns literal `code` and `tokens`, else None."""
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
            if isinstance(target, ast.Name) and target.id in ("code", "tokens"):
                try:
                    attributes[target.id] = ast.literal_eval(value)
                except ValueError:
                    return None
        if attributes:
            found.append(attributes)
    if len(found) != 1:
        return None
    code, tokens = found[0].get("code"), found[0].get("tokens")
    valid = (
        isinstance(code, str)
        and isinstance(tokens, tuple)
        and all(isinstance(group, tuple) and all(isinstance(t, bytes) for t in group) for group in tokens)
    )
    return RuleTokens(code, tokens) if valid else None


def _from_registry(rules: dict) -> tuple[RuleTokens, ...]:
    return tuple(RuleTokens(code, rule.tokens) for code, rule in sorted(rules.items()))


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
        from jaxfix.codemods import RULES  # not plain literals: the slow path just works

        return _from_registry(RULES)
    return _from_registry(registry.RULES)


def rule_codes() -> tuple[str, ...]:
    return tuple(r.code for r in all_rules())


def selected_rules(options: Options) -> tuple[RuleTokens, ...]:
    return tuple(r for r in all_rules() if options.is_selected(r.code))


def is_candidate(source: bytes, rules: tuple[RuleTokens, ...]) -> bool:
    """Whether any of `rules` could fire on `source`: if not, the file needs no parsing."""
    words = _Words(source)
    return any(rule.may_apply(words) for rule in rules)
