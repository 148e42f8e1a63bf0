"""What a rule says about a call inside `for` loops whose iterations it asks one by one
(`Analysis.iterations`, `Analysis.unrolled`)."""

from __future__ import annotations

import ast

from jaxfix.ground.quoting import cut


def may_end_early(loop: ast.For) -> bool:
    """Whether something in the loop's body (not in a function it defines) may end the
    loop before its last item: `break`, `return`, `yield`, `raise`."""
    pending: list[ast.AST] = list(loop.body)
    while pending:
        node = pending.pop()
        if isinstance(
            node, (ast.Break, ast.Return, ast.Yield, ast.YieldFrom, ast.Raise)
        ):
            return True
        if not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            pending.extend(ast.iter_child_nodes(node))
    return False


def iteration_text(bound: tuple[tuple[ast.For, str, object], ...]) -> str:
    """`name = 'decode', shape = (8, 2)` for one iteration: its loop variables that hold
    plain values (empty when none does)."""
    return ", ".join(
        f"{name} = {cut(repr(value), 60)}"
        for _, name, value in bound
        if isinstance(value, (int, str, float, tuple)) and not isinstance(value, bool)
    )
