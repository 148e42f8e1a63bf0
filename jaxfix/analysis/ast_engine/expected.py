"""Code that tests an error: `with self.assertRaisesRegex(ValueError, pattern):` and the like.

A rule's report inside such a block is a test passing, not a bug, when the block expects the
rule's error: the exception type is the rule's (`Rule.error`, a builtin: `ValueError`,
`TypeError`, ...) or a base of it, or a type jaxfix cannot resolve to a builtin, and the pattern, if any, may match one of the rule's messages
(jaxfix/analysis/pattern_match.py decides that against the message as JAX formats it, meshes
and sizes left open, whatever their roles). A pattern whose value the engine does not know (an
f-string, a parameter, `re.escape(...)`) or a predicate exempts too: not reporting a real bug
there costs less than breaking a test.

Context managers recognised: `<x>.assertRaises(E)`, `<x>.assertRaisesRegex(E, pattern)`
(`assertRaisesRegexp`), absltest's `assertRaisesWithLiteralMatch(E, message)` and
`assertRaisesWithPredicateMatch(E, predicate)`, and `pytest.raises(E, match=pattern)`, however
imported. A node is inside one when it is in the `with` body or in a later item of the same
`with`, at any depth, function bodies included (a function defined in the block is assumed to
run there), or when it is in a function every run of which in the project is inside one (the
runs the contexts follow: calls, methods called on objects, `jax.jit(f)(...)`, `with C()` for an
`__enter__`), unless a test runner may run that function itself or its decorators may run it
elsewhere.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.arguments import passed_argument
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import External, ListValue, Value
from jaxfix.analysis.ast_engine.vocabulary import api_of
from jaxfix.analysis.names import EXPECTED_ERROR_METHODS as _TEST_CASE_METHODS
from jaxfix.analysis.names import Api
from jaxfix.analysis.pattern_match import Unmodelled, may_search

if TYPE_CHECKING:  # the engine's package imports the modules that answer for it
    from jaxfix.analysis.ast_engine import Engine

_PYTEST_RAISES = frozenset(
    {"pytest.raises", "_pytest.python_api.raises", "_pytest.raises.raises"}
)
_CATCH_EVERY_ERROR = frozenset({"Exception", "BaseException"})
# A rule's error as a block may expect it: the exception's name, its message templates.
Error = tuple[str, tuple[str, ...]]
# unittest, pytest and absltest run functions so named themselves, outside any block.
_RUN_BY_TEST_RUNNERS = ("test", "setUp", "tearDown", "setup", "teardown")


@dataclass(frozen=True)
class Expectation:
    """One expected-error context manager: the builtin exceptions it catches (None for a type
    that is not known: a class of the tree or a library, its bases not looked at) and its
    pattern as a regex for `re.search` (None: no pattern; `unknown`: not evaluable)."""

    caught: tuple[str | None, ...]
    pattern: str | None
    unknown_pattern: bool = False

    def covers(self, error: Error) -> bool:
        name, templates = error
        if (
            not {name, *_CATCH_EVERY_ERROR} & set(self.caught)
            and None not in self.caught
        ):
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


class ExpectedErrors:
    """Asked for one module's nodes; the `with` items of every module its functions' runs are
    in are read once, when first needed."""

    def __init__(self, engine: Engine, module: Module) -> None:
        self.engine = engine
        self.module = module
        self._items: dict[Module, dict[ast.withitem, Expectation]] = {}
        self._verdicts: dict[tuple[ast.withitem, Error], bool] = {}
        self._tested_functions: dict[tuple[ast.AST, Error], bool] = {}

    def expects(
        self, node: ast.AST, templates: tuple[str, ...], name: str = "ValueError"
    ) -> bool:
        """Whether `node` runs inside a block that expects the exception `name` with a message
        one of `templates` (message templates with `{mesh}`/`{size}` holes) stands for: around
        it, or around every run of a function it is in."""
        return self._expects(self.module, node, (name, templates), frozenset())

    def _expects(
        self,
        module: Module,
        node: ast.AST,
        error: Error,
        seen: frozenset[ast.AST],
    ) -> bool:
        items = self._items_of(module)
        parents = module.parents
        child, current = node, parents.get(node)
        while current is not None:
            if isinstance(current, (ast.With, ast.AsyncWith)):
                entered = (
                    current.items[: current.items.index(child)]
                    if isinstance(child, ast.withitem)
                    else current.items
                )
                if any(
                    item in items and self._verdict(items[item], item, error)
                    for item in entered
                ):
                    return True
            if (
                isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef))
                and current not in seen
                and self._tested(module, current, error, seen)
            ):
                return True
            child, current = current, parents.get(current)
        return False

    def _tested(
        self,
        module: Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        error: Error,
        seen: frozenset[ast.AST],
    ) -> bool:
        """Whether every run of `function` is in such a block (asked once per function: a
        helper called from many places is not followed again from each)."""
        key = (function, error)
        if key not in self._tested_functions:
            runs = (
                self.engine.contexts.calls_running(module, function)
                if self._runs_when_called(module, function)
                else []
            )
            self._tested_functions[key] = (
                isinstance(runs, list)
                and bool(runs)
                and all(
                    self._expects(caller, run, error, seen | {function})
                    for caller, run in runs
                )
            )
        return self._tested_functions[key]

    def _verdict(
        self, expectation: Expectation, item: ast.withitem, error: Error
    ) -> bool:
        key = (item, error)
        if key not in self._verdicts:
            self._verdicts[key] = expectation.covers(error)
        return self._verdicts[key]

    def _items_of(self, module: Module) -> dict[ast.withitem, Expectation]:
        found = self._items.get(module)
        if found is None:
            found = self._items[module] = {}
            for node in module.parents:
                if isinstance(node, ast.withitem):
                    expectation = self._expectation(module, node.context_expr)
                    if expectation is not None:
                        found[node] = expectation
        return found

    def _runs_when_called(
        self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> bool:
        """Whether the body runs only where the function is called (or jitted and run): not for
        a coroutine or generator, a function a test runner calls by its name, or one with a
        decorator other than `jax.jit`, `partial(jax.jit, ...)`, `functools.wraps(...)`,
        `staticmethod` (it may run the function elsewhere)."""
        if isinstance(function, ast.AsyncFunctionDef) or _yields(function):
            return False
        if function.name.startswith(_RUN_BY_TEST_RUNNERS):
            return False
        for decorator in function.decorator_list:
            value = self.engine.value_of(module, decorator)
            if not isinstance(value, External) or (
                api_of(value.name) not in (Api.JIT, Api.WRAPS)
                and value.name != "builtins.staticmethod"
            ):
                return False
        return True

    # -- reading the context manager ------------------------------------------------------

    def _expectation(self, module: Module, expr: ast.expr) -> Expectation | None:
        if not isinstance(expr, ast.Call):
            return None
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _TEST_CASE_METHODS:
            parameter, how = _TEST_CASE_METHODS[func.attr]
            exception = passed_argument(expr, 0, "expected_exception")
            pattern = passed_argument(expr, 1, parameter) if parameter else None
            positional = len(expr.args) + sum(k.arg is None for k in expr.keywords)
            if exception is None or positional > (2 if parameter else 1):
                return None  # the callable form, `assertRaises(E, f, *args)`: not a context manager
            return self._make(module, exception, pattern, how)
        callee = self.engine.value_of(module, func)
        if isinstance(callee, External) and callee.name in _PYTEST_RAISES:
            exception = passed_argument(expr, 0, "expected_exception")
            if (
                exception is None
                or len(expr.args) > 1
                or any(k.arg is None for k in expr.keywords)
            ):
                return None
            return self._make(
                module, exception, passed_argument(expr, None, "match"), "search"
            )
        return None

    def _make(
        self,
        module: Module,
        exception: ast.expr,
        pattern: ast.expr | None,
        how: str,
    ) -> Expectation:
        catches = _caught(self.engine.value_of(module, exception))
        if pattern is None:
            return Expectation(catches, None)
        value = self._pattern_value(module, pattern)
        if value is None:
            return Expectation(catches, None)
        if not isinstance(value, str) or how == "unknown":
            return Expectation(catches, None, unknown_pattern=True)
        return Expectation(
            catches, rf"\A{re.escape(value)}\Z" if how == "literal" else value
        )

    def _pattern_value(self, module: Module, pattern: ast.expr) -> Value:
        """The pattern's value; `re.compile(text)` is its text."""
        if (
            isinstance(pattern, ast.Call)
            and len(pattern.args) == 1
            and not pattern.keywords
            and not isinstance(pattern.args[0], ast.Starred)
        ):
            callee = self.engine.value_of(module, pattern.func)
            if isinstance(callee, External) and callee.name == "re.compile":
                pattern = pattern.args[0]
        return self.engine.value_of(module, pattern)


def _caught(exception: Value) -> tuple[str | None, ...]:
    """The builtin exceptions `except exception` names, None for each it names that is not
    known (a class of the tree or a library: its bases are not looked at)."""
    if isinstance(exception, (tuple, ListValue)):
        items = exception.items if isinstance(exception, ListValue) else exception
        return tuple(name for e in items for name in _caught(e))
    if not isinstance(exception, External) or not exception.name.startswith(
        "builtins."
    ):
        return (None,)
    return (exception.name.removeprefix("builtins."),)


def _yields(function: ast.FunctionDef) -> bool:
    """Whether `function` is a generator (a `yield` of its own, not of a nested scope)."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            stack.extend(ast.iter_child_nodes(node))
    return False
