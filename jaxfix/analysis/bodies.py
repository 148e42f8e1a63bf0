"""What runs when a function runs: its own nodes, not those of the functions and classes it defines."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

_SCOPE_BOUNDARIES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def own_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and its descendants, not entering nested functions, lambdas or classes."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(
            c for c in current.children if not isinstance(c, _SCOPE_BOUNDARIES)
        )


def is_generator(function: cst.FunctionDef) -> bool:
    """Calling a generator function runs none of its body (so its meshes are not entered, and
    it returns no value of its own)."""
    return any(isinstance(node, cst.Yield) for node in own_nodes(function.body))


def block(body: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    """The statements of an indented block; a one-line suite (`if x: return y`) as one statement."""
    if isinstance(body, cst.IndentedBlock):
        return body.body
    assert isinstance(body, cst.SimpleStatementSuite)
    return (cst.SimpleStatementLine(body=body.body),)
