"""How rules quote code and places in their messages: short code, lines, "not fixed: ..." notes."""

from __future__ import annotations

import libcst as cst

from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.diagnostics import Location, Related

_EMPTY = cst.Module([])


def code(node: cst.CSTNode) -> str:
    """The source of `node` as LibCST writes it."""
    return _EMPTY.code_for_node(node)


def short(node: cst.CSTNode | str, limit: int = 60) -> str:
    """The code (or text) on one line, cut to `limit` characters with '...'."""
    text = " ".join((node if isinstance(node, str) else code(node)).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def location(analysis: ModuleAnalysis, node: cst.CSTNode) -> Location:
    """Where `node` starts, 1-based line and column."""
    start = analysis.positions[node].start
    return Location(start.line, start.column + 1)


def related(analysis: ModuleAnalysis, message: str, node: cst.CSTNode) -> Related:
    return Related(message, location(analysis, node))


def not_fixed(reason: str) -> str:
    """The note a report carries when it has no fix: 'not fixed: <reason>'."""
    return f"not fixed: {reason}"


def with_note(message: str, note: str | None) -> str:
    """`message; note`, or `message` alone."""
    return f"{message}; {note}" if note else message
