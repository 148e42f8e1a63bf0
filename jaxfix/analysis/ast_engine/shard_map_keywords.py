"""The keywords a `shard_map` is given where a call applies it: a call of `jax.shard_map(f,
...)` itself, or of a `def` whose one decorator maps it (`@jax.shard_map(mesh=..., ...)`,
`@partial(jax.shard_map, mesh=..., ...)`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.names import Api

if TYPE_CHECKING:
    from jaxfix.analysis.ast_engine.analysis import Analysis

SHARD_MAPS = frozenset({Api.SHARD_MAP, Api.EXPERIMENTAL_SHARD_MAP})


def decorator_keywords(
    analysis: Analysis, decorator: ast.expr
) -> dict[str, ast.expr] | None:
    """The shard_map keywords of `@jax.shard_map(**keywords)` or
    `@partial(jax.shard_map, **keywords)`."""
    if not isinstance(decorator, ast.Call) or decorator.args[1:]:
        return None
    if any(k.arg is None for k in decorator.keywords):
        return None
    keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
    api = analysis.called_api(decorator)
    if api is Api.SHARD_MAP and not decorator.args:
        return keywords
    if (
        api is Api.PARTIAL
        and decorator.args
        and analysis.api_of(decorator.args[0]) in SHARD_MAPS
    ):
        return keywords
    return None


def applied_keywords(analysis: Analysis, call: ast.Call) -> dict[str, ast.expr] | None:
    """The shard_map arguments of `call`, when it calls shard_map or a `def` of one
    decorator mapping it; None otherwise."""
    if analysis.called_api(call) in SHARD_MAPS:
        return analysis.bind(call)
    if not isinstance(call.func, ast.Name):
        return None
    function = analysis.definition(call.func)
    if function is None or len(function.decorator_list) != 1:
        return None
    return decorator_keywords(analysis, function.decorator_list[0])
