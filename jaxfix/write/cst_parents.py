"""Every node's parent, from one walk of the tree's fields.

The same mapping as LibCST's ParentNodeProvider, which costs about five times as much: it asks
every node for its `children`, and each of those asks is a traversal of its own. A visitor
traversal is cheaper, but still rebuilds every node it leaves (2.7x as slow as this on the JAX
tree's test files); `parent_map` reads the children straight from each node's fields, in the
order LibCST's visitors enter them, learned once per node type.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import cast

import libcst as cst

# Node type -> a getter of its fields' values (a tuple) in the order LibCST visits them.
_FIELD_GETTERS: dict[
    type[cst.CSTNode], Callable[[cst.CSTNode], tuple[object, ...]]
] = {}
_IS_NODE: dict[type, bool] = {}  # whether values of a type are nodes


class _FieldOrder(cst.CSTVisitor):
    """Records which fields a node's `_visit_and_replace_children` visits, without descending."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


def _field_getter(node: cst.CSTNode) -> Callable[[cst.CSTNode], tuple[object, ...]]:
    """The getter of `node`'s type: the fields `_visit_and_replace_children` visits, in its
    order. A field it skipped on this node because it was None (LibCST visits
    `FormattedStringExpression.format_spec` only when there is one) comes last, where LibCST
    visits it too; fields of other values (strings, numbers) hold no nodes."""
    kind = type(node)
    recorder = _FieldOrder()
    node._visit_and_replace_children(recorder)  # noqa: SLF001 - the visit order is defined there
    visited = list(dict.fromkeys(recorder.fields))
    skipped = [
        f.name
        for f in dataclasses.fields(kind)
        if f.name not in visited and getattr(node, f.name) is None
    ]
    order = (*visited, *skipped)
    getter = _FIELD_GETTERS[kind] = (
        operator.attrgetter(*order)
        if len(order) > 1
        else lambda n: tuple(getattr(n, f) for f in order)
    )
    return getter


def parent_map(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Child -> parent for every node under `root` (which has none), in the order a visitor
    enters them."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    getters = _FIELD_GETTERS
    is_node = _IS_NODE  # by type: `isinstance` against CSTNode, an ABC, is slow
    stack: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        if parent is not None:
            parents[node] = parent
        children: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []
        for value in (getters.get(type(node)) or _field_getter(node))(node):
            kind = type(value)
            if is_node.get(kind) or (kind not in is_node and _learn(kind)):
                children.append((cast("cst.CSTNode", value), node))
            elif (kind is tuple or kind is list) and value:
                for item in cast("tuple[object, ...]", value):
                    kind = type(item)
                    if is_node.get(kind) or (kind not in is_node and _learn(kind)):
                        children.append((cast("cst.CSTNode", item), node))
        if children:
            children.reverse()
            stack.extend(children)
    return parents


def _learn(kind: type) -> bool:
    found = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return found
