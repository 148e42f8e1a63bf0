"""What a rule says about a call inside `for` loops whose iterations it asks one by one
(`Analysis.iterations`, `Analysis.unrolled`)."""

from __future__ import annotations

import ast
from pathlib import Path

from jaxfix.codemods.text import other_file
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


def loops_text(loops: list[tuple[ast.For, Path | None]], here: Path) -> str:
    """`the loop at line 8` (`the loops at lines 8, 12 of main.py`): where the loops are,
    each named from the reporting module `here`."""
    places = []
    for loop, path in sorted(loops, key=lambda item: (str(item[1]), item[0].lineno)):
        where = (
            f" of {other_file(path, here)}" if path is not None and path != here else ""
        )
        places.append(f"{loop.lineno}{where}")
    plural = "s" if len(places) > 1 else ""
    return f"the loop{plural} at line{plural} {', '.join(places)}"
