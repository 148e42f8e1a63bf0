"""A fix found over `ast`, written with LibCST: the file is parsed with LibCST only when a fix
is applied, and each edit's `ast` node is found there by its span and kind.

LibCST's positions leave out the parentheses around a node, as `ast`'s do, and both count
lines from 1; columns are characters on both sides once `ast`'s byte offsets are converted
(jaxfix/analysis/ast_engine/positions.py).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import libcst as cst
from libcst.metadata import CodeRange

# The LibCST classes an `ast` class is written as (by class name; the rest match by name).
_KINDS: dict[str, tuple[str, ...]] = {
    "Constant": (
        "Integer",
        "Float",
        "Imaginary",
        "SimpleString",
        "ConcatenatedString",
        "Name",  # True, False, None
        "Ellipsis",
    ),
    "JoinedStr": ("FormattedString", "ConcatenatedString"),
    "keyword": ("Arg",),
    "Starred": ("Arg", "StarredElement"),
    "withitem": ("WithItem",),
    "Expr": ("Expr",),
    "Assign": ("Assign",),
    "BinOp": ("BinaryOperation",),
    "UnaryOp": ("UnaryOperation",),
    "BoolOp": ("BooleanOperation",),
    "Compare": ("Comparison",),
    "IfExp": ("IfExp",),
    "ListComp": ("ListComp",),
    "DictComp": ("DictComp",),
    "SetComp": ("SetComp",),
    "GeneratorExp": ("GeneratorExp",),
    "AsyncFunctionDef": ("FunctionDef",),
    "AsyncWith": ("With",),
}


class NotFound(Exception):
    """No LibCST node stands where an edit's `ast` node is (a bug in jaxfix, never the
    user's): the file is left untouched."""


class Locator:
    """Finds the LibCST node of an `ast` node in one parsed module."""

    def __init__(self, positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        self._at: dict[tuple[int, int, int, int], list[cst.CSTNode]] = {}
        for node, where in positions.items():
            key = (
                where.start.line,
                where.start.column,
                where.end.line,
                where.end.column,
            )
            self._at.setdefault(key, []).append(node)

    def find(
        self, node: ast.AST, start: tuple[int, int], end: tuple[int, int]
    ) -> cst.CSTNode:
        """The LibCST node of `node` (whose span is `start`..`end`, character columns)."""
        kinds = _KINDS.get(type(node).__name__, (type(node).__name__,))
        found = [
            candidate
            for candidate in self._at.get((*start, *end), ())
            if type(candidate).__name__ in kinds
        ]
        if not found:
            raise NotFound(
                f"no {kinds[0]} at {start[0]}:{start[1] + 1} for the fix's {type(node).__name__}"
            )
        return found[-1]  # the outermost: positions list children before parents


class ReplaceByIdentity(cst.CSTTransformer):
    """Puts each edit's replacement where its original node (by identity) is."""

    def __init__(self, edits: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        super().__init__()
        self.edits = edits

    def on_leave(self, original_node, updated_node):  # noqa: ANN001 - LibCST's signature
        return self.edits.get(original_node, updated_node)
