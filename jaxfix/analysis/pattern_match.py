"""Could a regular expression match an error message some of whose parts are not known?

`may_search(pattern, template)` answers whether `re.search(pattern, message)` can succeed for
some message the template stands for: literal text with `{mesh}` and `{size}` holes, maybe
with a role (`{mesh:new}`; see jaxfix/evidence/message_templates.py). It runs the pattern as a small
NFA over the template, and through each hole together with the hole's own NFA, so no sample
mesh is guessed. What the NFA does not model exactly (lookarounds, backreferences, word
boundaries, multi-line anchors) it lets through, so the answer errs towards "may match":
a `False` is certain, a `True` is not. A pattern Python rejects, or one too large to model,
raises `Unmodelled`."""

from __future__ import annotations

import re
import re._constants as sre_constants  # type: ignore[import-not-found]  # CPython's regex parser: no stubs
import re._parser as sre_parse  # type: ignore[import-not-found]  # no stubs either
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from jaxfix.evidence.message_templates import HOLE_KINDS

_MAX_COPIES = 32  # bounded repeats longer than this become unbounded (a superset)
_MAX_STATES = 20_000
_NOT_STARTED = -1  # in a hole: the pattern has not begun to match yet
_ALPHABET = [chr(code) for code in range(32, 127)]

CharTest = Callable[[str], bool]


class Unmodelled(Exception):
    """The pattern cannot be evaluated statically (invalid, or too large)."""


@dataclass
class _Nfa:
    """States are ints; each has epsilon edges, at most one character edge, or an anchor."""

    epsilon: list[list[int]] = field(default_factory=list)
    consume: dict[int, tuple[CharTest, int]] = field(default_factory=dict)
    anchor: dict[int, tuple[str, int]] = field(default_factory=dict)  # "begin" / "end"

    def state(self) -> int:
        if len(self.epsilon) >= _MAX_STATES:
            raise Unmodelled("pattern too large")
        self.epsilon.append([])
        return len(self.epsilon) - 1

    def link(self, source: int, target: int) -> None:
        self.epsilon[source].append(target)


def _category(code: object) -> CharTest:
    tests: dict[str, CharTest] = {
        "CATEGORY_DIGIT": str.isdecimal,
        "CATEGORY_NOT_DIGIT": lambda c: not c.isdecimal(),
        "CATEGORY_SPACE": str.isspace,
        "CATEGORY_NOT_SPACE": lambda c: not c.isspace(),
        "CATEGORY_WORD": lambda c: c.isalnum() or c == "_",
        "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
    }
    test = tests.get(str(code))
    if test is None:
        return lambda c: True  # linebreak categories and the like: let them through
    return test


def _in_range(low: int, high: int) -> CharTest:
    return lambda c: low <= ord(c) <= high


def _char_set(items: list[tuple[Any, Any]], ignore_case: bool) -> CharTest:
    negate = False
    tests: list[CharTest] = []
    for op, av in items:
        if op is sre_constants.NEGATE:
            negate = True
        elif op is sre_constants.LITERAL:
            tests.append(_in_range(av, av))
        elif op is sre_constants.RANGE:
            tests.append(_in_range(*av))
        elif op is sre_constants.CATEGORY:
            tests.append(_category(av))
        else:
            raise Unmodelled(f"character set item {op}")

    def inside(c: str) -> bool:
        candidates = {c, c.lower(), c.upper()} if ignore_case else {c}
        return any(test(x) for x in candidates for test in tests)

    return (lambda c: not inside(c)) if negate else inside


def _same_char(expected: str, ignore_case: bool) -> CharTest:
    if ignore_case:
        folded = expected.lower()
        return lambda c: c.lower() == folded
    return lambda c: c == expected


class _Builder:
    def __init__(self) -> None:
        self.nfa = _Nfa()

    def sequence(self, items: Any, ignore_case: bool) -> tuple[int, int]:
        """A fragment for a parsed pattern (a SubPattern, or a list of (opcode, argument))."""
        start = end = self.nfa.state()
        for op, av in items:
            first, last = self.item(op, av, ignore_case)
            self.nfa.link(end, first)
            end = last
        return start, end

    def _char(self, test: CharTest) -> tuple[int, int]:
        start, end = self.nfa.state(), self.nfa.state()
        self.nfa.consume[start] = (test, end)
        return start, end

    def _any_text(self) -> tuple[int, int]:
        """Zero or more of any character (what a backreference may match, at most)."""
        start, end = self.nfa.state(), self.nfa.state()
        self.nfa.consume[start] = (lambda c: True, start)
        self.nfa.link(start, end)
        return start, end

    def _epsilon(self) -> tuple[int, int]:
        start = self.nfa.state()
        return start, start

    def item(self, op: Any, av: Any, ignore_case: bool) -> tuple[int, int]:
        c = sre_constants
        if op is c.LITERAL:
            return self._char(_same_char(chr(av), ignore_case))
        if op is c.NOT_LITERAL:
            same = _same_char(chr(av), ignore_case)
            return self._char(lambda ch: not same(ch))
        if op is c.ANY:
            return self._char(
                lambda ch: True
            )  # `.` without DOTALL misses "\n": let it through
        if op is c.IN:
            return self._char(_char_set(av, ignore_case))
        if op is c.SUBPATTERN:
            _group, add_flags, del_flags, pattern = av
            local = (
                ignore_case or bool(add_flags & re.IGNORECASE)
            ) and not del_flags & re.IGNORECASE
            return self.sequence(pattern, local)
        if op is getattr(c, "ATOMIC_GROUP", None):
            return self.sequence(av, ignore_case)
        if op is c.BRANCH:
            return self._alternatives([self.sequence(b, ignore_case) for b in av[1]])
        if op is c.GROUPREF_EXISTS:
            _group, yes, no = av
            branches = [
                self.sequence(yes, ignore_case),
                self.sequence(no, ignore_case) if no else self._epsilon(),
            ]
            return self._alternatives(branches)
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, high, pattern = av
            return self._repeat(low, high, pattern, ignore_case)
        if op is c.AT:
            if av in (c.AT_BEGINNING, c.AT_BEGINNING_STRING):
                return self._anchor("begin")
            if av in (c.AT_END, c.AT_END_STRING):
                return self._anchor("end")
            return self._epsilon()  # word boundaries: let them through
        if op in (c.ASSERT, c.ASSERT_NOT):
            return self._epsilon()  # lookarounds: let them through
        if op is c.GROUPREF:
            return self._any_text()
        raise Unmodelled(f"regex opcode {op}")

    def _anchor(self, kind: str) -> tuple[int, int]:
        start, end = self.nfa.state(), self.nfa.state()
        self.nfa.anchor[start] = (kind, end)
        return start, end

    def _alternatives(self, branches: list[tuple[int, int]]) -> tuple[int, int]:
        start, end = self.nfa.state(), self.nfa.state()
        for first, last in branches:
            self.nfa.link(start, first)
            self.nfa.link(last, end)
        return start, end

    def _repeat(
        self, low: int, high: int, pattern: Any, ignore_case: bool
    ) -> tuple[int, int]:
        unbounded = high == sre_constants.MAXREPEAT or high - low > _MAX_COPIES
        low = min(low, _MAX_COPIES)
        start = end = self.nfa.state()
        for _ in range(low):
            first, last = self.sequence(pattern, ignore_case)
            self.nfa.link(end, first)
            end = last
        if unbounded:
            first, last = self.sequence(pattern, ignore_case)
            self.nfa.link(end, first)
            self.nfa.link(last, end)  # loop back: zero or more further copies
            return start, end
        finish = self.nfa.state()
        for _ in range(high - low):
            first, last = self.sequence(pattern, ignore_case)
            self.nfa.link(end, finish)
            self.nfa.link(end, first)
            end = last
        self.nfa.link(end, finish)
        return start, finish


def _compile(pattern: str) -> tuple[_Nfa, int, int, int]:
    try:
        re.compile(pattern)
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        raise Unmodelled(f"not a valid pattern: {error}") from None
    builder = _Builder()
    start, accept = builder.sequence(parsed, bool(parsed.state.flags & re.IGNORECASE))
    return builder.nfa, start, accept, parsed.state.flags


def _tokens(template: str) -> list[str | _Hole]:
    """The template's characters, a _Hole for each `{name}`."""
    tokens: list[str | _Hole] = []
    for literal, name, _spec, _conversion in string.Formatter().parse(template):
        tokens.extend(literal)
        if name is not None:
            tokens.append(_hole(name))
    return tokens


@dataclass(frozen=True)
class _Hole:
    nfa: _Nfa
    start: int
    accept: int


@cache
def _hole(name: str) -> _Hole:
    nfa, start, accept, _flags = _compile(HOLE_KINDS[name])
    return _Hole(nfa, start, accept)


def may_search(pattern: str, template: str) -> bool:
    """Whether `re.search(pattern, m)` may succeed for a message m the template stands for."""
    nfa, start, accept, flags = _compile(pattern)
    tokens = _tokens(template)
    loose = bool(flags & re.MULTILINE)  # `^`/`$` at any line: let them through

    def closure(states: set[int], position: int, in_hole: bool) -> set[int]:
        found, todo = set(states), list(states)
        while todo:
            state = todo.pop()
            targets = list(nfa.epsilon[state])
            if state in nfa.anchor:
                kind, target = nfa.anchor[state]
                if (
                    in_hole
                    or loose
                    or (position == 0 if kind == "begin" else position == len(tokens))
                ):
                    targets.append(target)
            for target in targets:
                if target not in found:
                    found.add(target)
                    todo.append(target)
        return found

    def through_hole(states: set[int], hole: _Hole) -> set[int]:
        """The pattern states reachable by reading some text of the hole's language: a search
        over pairs (pattern state, hole state), characters drawn from printable ASCII."""
        pairs = {(p, hole.start) for p in closure(states, 0, True)} | {
            (_NOT_STARTED, hole.start)
        }
        todo = list(pairs)
        while todo:
            p, h = todo.pop()
            steps = [(p, t) for t in hole.nfa.epsilon[h]]
            if p == _NOT_STARTED:  # the search may begin anywhere inside the hole
                steps.append((start, h))
                if h in hole.nfa.consume:
                    steps.append((p, hole.nfa.consume[h][1]))
            else:
                steps += [(t, h) for t in closure({p}, 0, True)]
                if p in nfa.consume and h in hole.nfa.consume:
                    (p_test, p_next), (h_test, h_next) = (
                        nfa.consume[p],
                        hole.nfa.consume[h],
                    )
                    if any(p_test(c) and h_test(c) for c in _ALPHABET):
                        steps.append((p_next, h_next))
            for pair in steps:
                if pair not in pairs:
                    pairs.add(pair)
                    todo.append(pair)
        if any(p == accept for p, _ in pairs):
            return {accept}
        return {p for p, h in pairs if h == hole.accept and p != _NOT_STARTED}

    current = closure({start}, 0, False)
    for position, token in enumerate(tokens):
        if accept in current:
            return True
        if isinstance(token, _Hole):
            current = through_hole(current | {start}, token)
        else:
            current = {
                nfa.consume[s][1]
                for s in current
                if s in nfa.consume and nfa.consume[s][0](token)
            }
        current = closure(current | {start}, position + 1, False)
    return accept in current
