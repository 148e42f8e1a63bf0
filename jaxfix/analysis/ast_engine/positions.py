"""Where an `ast` node is, in the characters an editor and LibCST count.

`ast` gives 1-based lines and 0-based columns in UTF-8 *bytes*; diagnostics, LibCST's
positions and editors count characters, so a column is converted with its line's text.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """1-based lines, 0-based character columns (as LibCST's `CodeRange`)."""

    start: tuple[int, int]
    end: tuple[int, int]


def span(lines: list[str], node: ast.AST) -> Span:
    """`node`'s span; `lines` are the module's lines as text (decoded as its coding cookie
    says, keepends): `ast` counts a column in the UTF-8 bytes of the decoded line."""
    if isinstance(node, ast.withitem):  # `ast` gives it no position: its parts' span
        last = node.optional_vars or node.context_expr
        return Span(span(lines, node.context_expr).start, span(lines, last).end)
    line = getattr(node, "lineno", 1)
    end_line = getattr(node, "end_lineno", None) or line
    column = _characters(lines, line, getattr(node, "col_offset", 0))
    end_column = _characters(
        lines, end_line, getattr(node, "end_col_offset", None) or 0
    )
    return Span((line, column), (end_line, end_column))


def _characters(lines: list[str], line: int, byte_offset: int) -> int:
    if not 0 < line <= len(lines) or byte_offset <= 0:
        return max(byte_offset, 0)
    text = lines[line - 1]
    if text.isascii():
        return byte_offset
    encoded = text.encode("utf-8", errors="surrogateescape")
    return len(encoded[:byte_offset].decode("utf-8", errors="surrogateescape"))
