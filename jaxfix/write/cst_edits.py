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
    """Puts each edit's replacement where its original node (by identity) is. A replacement
    that holds the original node itself among new statements (`bound_before`) keeps the edits
    made inside it; a small statement that became several is written one a line."""

    def __init__(self, edits: Mapping[cst.CSTNode, cst.CSTNode]) -> None:
        super().__init__()
        self.edits = edits

    def on_leave(self, original_node, updated_node):  # noqa: ANN001 - LibCST's signature
        replacement = self.edits.get(original_node, updated_node)
        if isinstance(replacement, cst.FlattenSentinel):
            nodes = list(replacement.nodes)
            if original_node in nodes:  # by identity: CST nodes compare so
                kept = updated_node
                moved = getattr(original_node, "leading_lines", None)
                if moved and getattr(nodes[0], "leading_lines", None) is moved:
                    kept = updated_node.with_changes(leading_lines=())
                nodes = [kept if n is original_node else n for n in nodes]
            replacement = cst.FlattenSentinel(nodes)
        if (
            isinstance(updated_node, cst.SimpleStatementLine)
            and len(original_node.body) == 1
            and len(updated_node.body) > 1
        ):
            return _one_a_line(updated_node)
        return replacement


def bound_before(
    original: cst.CSTNode, name: str, value: str
) -> cst.FlattenSentinel[cst.CSTNode]:
    """`name = value` as a statement of its own just before the statement `original`, which
    keeps its comments above, and the edits made inside it (ReplaceByIdentity)."""
    leading = getattr(original, "leading_lines", ())
    binding = cst.parse_statement(f"{name} = {value}\n").with_changes(
        leading_lines=leading
    )
    if isinstance(original, cst.BaseSmallStatement):
        return cst.FlattenSentinel([binding.body[0], original])
    return cst.FlattenSentinel([binding, original])  # its comments move to the binding


def _one_a_line(line: cst.SimpleStatementLine) -> cst.FlattenSentinel:
    """`a; b` that a fix made of one statement, as two lines: comments above stay above the
    first, the line's own comment goes with the last."""
    body = list(line.body)
    lines = []
    for index, statement in enumerate(body):
        last = index == len(body) - 1
        lines.append(
            cst.SimpleStatementLine(
                body=[statement.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
                leading_lines=line.leading_lines if index == 0 else (),
                trailing_whitespace=line.trailing_whitespace
                if last
                else cst.TrailingWhitespace(),
            )
        )
    return cst.FlattenSentinel(lines)
