"""A call's argument expressions by parameter name, over `ast` (for a JAX API's signature from
jaxfix/analysis/names.py, or a function of the tree's)."""

from __future__ import annotations

import ast

from jaxfix.analysis.names import Signature


def bind_arguments(call: ast.Call, signature: Signature) -> dict[str, ast.expr] | None:
    """A call's arguments by parameter name; None if it uses `*`/`**`, passes too many
    positional arguments, an unknown keyword, or one parameter twice."""
    bound: dict[str, ast.expr] = {}
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) or index >= len(signature.positional):
            return None
        bound[signature.positional[index]] = arg
    for keyword in call.keywords:
        name = keyword.arg
        if name is None or name in signature.positional[: signature.positional_only]:
            return None
        if name not in signature.positional and name not in signature.keyword_only:
            return None
        if name in bound:
            return None
        bound[name] = keyword.value
    return bound


def passed_argument(
    call: ast.Call, position: int | None, keyword: str | None
) -> ast.expr | None:
    """What `call` passes by `keyword`, else at `position` (not a `*` argument); None if
    neither."""
    for item in call.keywords:
        if keyword is not None and item.arg == keyword:
            return item.value
    if position is not None and len(call.args) > position:
        arg = call.args[position]
        if not isinstance(arg, ast.Starred):
            return arg
    return None
