"""One node read as it is written, without the value model: its code, that code on one line
cut short for a message, and whether it is the literal `None`."""

from __future__ import annotations

import libcst as cst

from jaxfix.quoting import cut

_EMPTY = cst.Module([])


def code(node: cst.CSTNode) -> str:
    """The source of `node` as LibCST writes it."""
    return _EMPTY.code_for_node(node)


def short(node: cst.CSTNode | str, limit: int = 60) -> str:
    """The code (or text) on one line, cut to `limit` characters with '...'."""
    return cut(" ".join((node if isinstance(node, str) else code(node)).split()), limit)


def is_none(node: cst.BaseExpression) -> bool:
    """`None` written as such (a name bound to None is the value model's question)."""
    return isinstance(node, cst.Name) and node.value == "None"
