"""How rules name places in their messages: locations, related lines, "not fixed: ..." notes
(code itself is quoted with jaxfix/analysis/syntax.py)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.diagnostics import Location, Related

if TYPE_CHECKING:  # the LibCST rules' (both import LibCST)
    import libcst as cst

    from jaxfix.analysis.module import ModuleAnalysis


def location(
    analysis: Analysis | ModuleAnalysis, node: ast.AST | cst.CSTNode
) -> Location:
    """Where `node` starts, 1-based line and column."""
    if isinstance(analysis, Analysis):
        assert isinstance(node, ast.AST)
        line, column = analysis.span(node).start
        return Location(line, column + 1)
    assert not isinstance(node, ast.AST)  # a LibCST node of the old analysis
    start = analysis.positions[node].start
    return Location(start.line, start.column + 1)


def related(
    analysis: Analysis | ModuleAnalysis, message: str, node: ast.AST | cst.CSTNode
) -> Related:
    return Related(message, location(analysis, node))


def not_fixed(reason: str) -> str:
    """The note a report carries when it has no fix: 'not fixed: <reason>'."""
    return f"not fixed: {reason}"


def with_note(message: str, note: str | None) -> str:
    """`message; note`, or `message` alone."""
    return f"{message}; {note}" if note else message
