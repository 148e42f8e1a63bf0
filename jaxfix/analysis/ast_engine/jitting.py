"""The one place that recognises a `jax.jit` application over `ast`, in any of the forms code
writes it: `jax.jit(f, **keywords)`, and the decorators that jit: `@jax.jit`, `@pjit`,
`@jax.jit(**keywords)`, `@partial(jax.jit, **keywords)`."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from jaxfix.analysis.names import Api


class JitQuestions(Protocol):
    """What `jit_application` asks of the module's analysis."""

    def api_of(self, expr: ast.AST | None) -> Api | None: ...

    def called_api(self, node: ast.AST | None) -> Api | None: ...

    def bind(self, call: ast.Call) -> dict[str, ast.expr] | None: ...

    def may_be(self, expr: ast.AST, *apis: Api) -> bool: ...


@dataclass(frozen=True, kw_only=True)
class JitApplication:
    """`jax.jit(f, **keywords)`, or a decorator that jits (`function` None)."""

    function: ast.expr | None  # `f` in `jax.jit(f, ...)`
    keywords: Mapping[str, ast.expr]


def jit_application(expr: ast.expr, analysis: JitQuestions) -> JitApplication | None:
    """`jax.jit` / `pjit` itself, `functools.partial(jax.jit, k=v, ...)`, `jax.jit(k=v, ...)`,
    or `jax.jit(f, k=v, ...)`; None for anything else (arguments jaxfix cannot bind too)."""
    # each callee tested by its spelling first (`may_be`): most are surely no jit
    if isinstance(expr, (ast.Name, ast.Attribute)):
        if analysis.may_be(expr, Api.JIT) and analysis.api_of(expr) is Api.JIT:
            return JitApplication(function=None, keywords={})
        return None
    if not isinstance(expr, ast.Call) or not analysis.may_be(
        expr.func, Api.PARTIAL, Api.JIT
    ):
        return None
    api = analysis.called_api(expr)
    if api is Api.PARTIAL:
        if len(expr.args) != 1 or isinstance(expr.args[0], ast.Starred):
            return None
        if not analysis.may_be(expr.args[0], Api.JIT):
            return None
        if analysis.api_of(expr.args[0]) is not Api.JIT:
            return None
        if any(k.arg is None for k in expr.keywords):
            return None
        return JitApplication(
            function=None, keywords={k.arg: k.value for k in expr.keywords if k.arg}
        )
    if api is Api.JIT:
        args = analysis.bind(expr)
        if args is None:
            return None
        function = args.pop(
            "fun", None
        )  # `jax.jit(**keywords)` alone makes a decorator
        return JitApplication(function=function, keywords=args)
    return None
