"""The one place that recognises a `jax.jit` application, in any of the forms code writes it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst

from jaxfix.analysis.cst_names import ApiResolver, bind
from jaxfix.analysis.names import SIGNATURES, Api


@dataclass(frozen=True, kw_only=True)
class JitApplication:
    """`jax.jit(f, **keywords)`, or a decorator that jits: `@jax.jit`, `@jax.jit(**keywords)`,
    `@partial(jax.jit, **keywords)`."""

    function: (
        cst.BaseExpression | None
    )  # `f` in `jax.jit(f, ...)`; None for a decorator
    keywords: Mapping[str, cst.BaseExpression]


def jit_application(
    expr: cst.BaseExpression, resolver: ApiResolver
) -> JitApplication | None:
    """`jax.jit` / `pjit` itself, `functools.partial(jax.jit, k=v, ...)`, `jax.jit(k=v, ...)`, or
    `jax.jit(f, k=v, ...)`;
    None for anything else (including arguments jaxfix cannot bind)."""
    if isinstance(expr, (cst.Name, cst.Attribute)) and resolver.api(expr) is Api.JIT:
        return JitApplication(function=None, keywords={})
    if not isinstance(expr, cst.Call):
        return None
    api = resolver.called_api(expr)
    if api is Api.PARTIAL:
        first, *rest = expr.args or (None,)
        if (
            first is None
            or first.keyword is not None
            or first.star
            or resolver.api(first.value) is not Api.JIT
        ):
            return None
        keywords = {
            arg.keyword.value: arg.value
            for arg in rest
            if arg.keyword is not None and not arg.star
        }
        return (
            JitApplication(function=None, keywords=keywords)
            if len(keywords) == len(rest)
            else None
        )
    if api is Api.JIT:
        args = bind(expr, SIGNATURES[Api.JIT])
        if args is None:
            return None
        function = args.pop(
            "fun", None
        )  # `jax.jit(**keywords)` alone makes a decorator
        return JitApplication(function=function, keywords=args)
    return None
