"""Code that tests an error: `with self.assertRaisesRegex(ValueError, pattern):` and the like.

A rule's report inside such a block is a test passing, not a bug, when the block expects the
rule's error: the exception type is `ValueError` (or a base of it, or a type jaxfix cannot
resolve) and the pattern, if any, may match the rule's message (jaxfix/analysis/pattern_match.py
decides that against the message as JAX formats it, meshes and sizes left open). A pattern
jaxfix cannot evaluate statically (an f-string, a parameter, `re.escape(...)`) or a
predicate exempts too: not reporting a real bug there costs less than breaking a test.

Context managers recognised: `<x>.assertRaises(E)`, `<x>.assertRaisesRegex(E, pattern)`
(`assertRaisesRegexp`), absltest's `assertRaisesWithLiteralMatch(E, message)` and
`assertRaisesWithPredicateMatch(E, predicate)`, and `pytest.raises(E, match=pattern)`. A node
is inside one when it is in the `with` body or in a later item of the same `with`, at any
depth, function bodies included (a function defined in the block is assumed to run there), or
when it is in a function every call of which is inside one (the calls `contexts_at` follows:
`f(...)`, `jax.jit(f)(...)`, ...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol, TypeVar

import libcst as cst

from jaxfix.analysis.cst_names import ApiResolver
from jaxfix.analysis.pattern_match import Unmodelled, may_search

NodeT = TypeVar("NodeT", bound=cst.CSTNode)

# Method name -> (parameter holding the pattern or None, how the pattern is applied).
_TEST_CASE_METHODS: dict[str, tuple[str | None, str]] = {
    "assertRaises": (None, "search"),
    "assertRaisesRegex": ("expected_regex", "search"),
    "assertRaisesRegexp": ("expected_regex", "search"),
    "assertRaisesWithLiteralMatch": ("expected_exception_message", "literal"),
    "assertRaisesWithPredicateMatch": ("predicate", "unknown"),
}
_PYTEST_RAISES = frozenset(
    {"pytest.raises", "_pytest.python_api.raises", "_pytest.raises.raises"}
)
_CATCHES_VALUE_ERROR = frozenset(
    {"builtins.ValueError", "builtins.Exception", "builtins.BaseException"}
)


@dataclass(frozen=True)
class Expectation:
    """One expected-error context manager: whether it catches ValueError (None: unknown) and
    its pattern as a regex for `re.search` (None: no pattern; `unknown`: not evaluable)."""

    catches_value_error: bool | None
    pattern: str | None
    unknown_pattern: bool = False

    def covers(self, templates: tuple[str, ...]) -> bool:
        if self.catches_value_error is False:
            return False
        if self.pattern is None or self.unknown_pattern:
            return True
        for template in templates:
            try:
                if may_search(self.pattern, template):
                    return True
            except Unmodelled:
                return True
        return False


class ExpectationQuestions(Protocol):
    """What `ExpectedErrors` asks of the module's analysis."""

    @property
    def parents(self) -> Mapping[cst.CSTNode, cst.CSTNode]: ...

    @property
    def names(self) -> ApiResolver: ...

    def nodes(self, kind: type[NodeT]) -> list[NodeT]: ...

    def resolve(self, expr: cst.BaseExpression) -> cst.BaseExpression: ...

    def calls_running(self, function: cst.FunctionDef) -> list[cst.Call]: ...


class ExpectedErrors:
    """Asked once per module: which `with` items expect an error, and what they expect."""

    def __init__(self, analysis: ExpectationQuestions) -> None:
        self.analysis = analysis
        self._verdicts: dict[tuple[cst.WithItem, tuple[str, ...]], bool] = {}

    @cached_property
    def _items(self) -> dict[cst.WithItem, Expectation]:
        found: dict[cst.WithItem, Expectation] = {}
        for statement in self.analysis.nodes(cst.With):
            for item in statement.items:
                expectation = self._expectation(item.item)
                if expectation is not None:
                    found[item] = expectation
        return found

    def is_expectation(self, item: cst.WithItem) -> bool:
        """Whether the `with` item is one of the context managers above (it enters no mesh)."""
        return item in self._items

    def expects(
        self,
        node: cst.CSTNode,
        templates: tuple[str, ...],
        seen: frozenset[cst.CSTNode] = frozenset(),
    ) -> bool:
        """Whether `node` runs inside a block that expects an error one of `templates` (message
        templates with `{mesh}`/`{size}` holes) stands for: around it, or around every call
        that runs the function it is in (one level of calls, as `contexts_at` follows them)."""
        if not self._items:
            return False
        parents = self.analysis.parents
        child, current = node, parents.get(node)
        while current is not None:
            if isinstance(current, cst.With):
                entered = (
                    current.items[: current.items.index(child)]
                    if child in current.items
                    else current.items
                )
                if any(
                    item in self._items and self._verdict(item, templates)
                    for item in entered
                ):
                    return True
            if isinstance(current, cst.FunctionDef) and current not in seen:
                calls = self.analysis.calls_running(current)
                if calls and all(
                    self.expects(call, templates, seen | {current}) for call in calls
                ):
                    return True
            child, current = current, parents.get(current)
        return False

    def _verdict(self, item: cst.WithItem, templates: tuple[str, ...]) -> bool:
        key = (item, templates)
        if key not in self._verdicts:
            self._verdicts[key] = self._items[item].covers(templates)
        return self._verdicts[key]

    # -- reading the context manager ------------------------------------------------------

    def _expectation(self, expr: cst.BaseExpression) -> Expectation | None:
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in _TEST_CASE_METHODS:
            parameter, how = _TEST_CASE_METHODS[func.attr.value]
            exception = _argument(expr, 0, "expected_exception")
            pattern = _argument(expr, 1, parameter) if parameter else None
            positional = [a for a in expr.args if a.keyword is None]
            if exception is None or len(positional) > (2 if parameter else 1):
                return None  # the callable form, `assertRaises(E, f, *args)`: not a context manager
            return self._make(exception, pattern, how)
        names = {q.name for q in self.analysis.names.qualified_names(func)}
        if names & _PYTEST_RAISES:
            exception = _argument(expr, 0, "expected_exception")
            if exception is None or any(a.keyword is None for a in expr.args[1:]):
                return None
            return self._make(exception, _argument(expr, None, "match"), "search")
        return None

    def _make(
        self,
        exception: cst.BaseExpression,
        pattern: cst.BaseExpression | None,
        how: str,
    ) -> Expectation:
        catches = self._catches_value_error(exception)
        if pattern is None or (
            isinstance(pattern, cst.Name) and pattern.value == "None"
        ):
            return Expectation(catches, None)
        text = self._string(pattern)
        if text is None or how == "unknown":
            return Expectation(catches, None, unknown_pattern=True)
        return Expectation(
            catches, rf"\A{re.escape(text)}\Z" if how == "literal" else text
        )

    def _catches_value_error(self, exception: cst.BaseExpression) -> bool | None:
        node = self.analysis.resolve(exception)
        if isinstance(node, (cst.Tuple, cst.List)):
            verdicts = [self._catches_value_error(e.value) for e in node.elements]
            return True if True in verdicts else (None if None in verdicts else False)
        names = self.analysis.names.qualified_names(node)
        if not names:
            return None
        if any(q.name in _CATCHES_VALUE_ERROR for q in names):
            return True
        return False if all(q.name.startswith("builtins.") for q in names) else None

    def _string(self, pattern: cst.BaseExpression) -> str | None:
        node = self.analysis.resolve(pattern)
        if (
            isinstance(node, cst.Call)
            and len(node.args) == 1
            and not node.args[0].keyword
            and not node.args[0].star
            and any(
                q.name == "re.compile"
                for q in self.analysis.names.qualified_names(node.func)
            )
        ):
            node = self.analysis.resolve(node.args[0].value)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            value = node.evaluated_value
            return value if isinstance(value, str) else None
        return None


def _argument(
    call: cst.Call, position: int | None, keyword: str | None
) -> cst.BaseExpression | None:
    for arg in call.args:
        if (
            keyword is not None
            and arg.keyword is not None
            and arg.keyword.value == keyword
        ):
            return arg.value
    if position is not None and len(call.args) > position:
        arg = call.args[position]
        if arg.keyword is None and not arg.star:
            return arg.value
    return None
