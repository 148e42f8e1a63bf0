"""Which fields of an `ast` node type may hold a node that walks look at: read once per type
from the node's grammar line (its docstring: `Name(identifier id, expr_context ctx)`), so the
engine's walks (each module's index, a scope's names, the rules' walk) skip names, strings,
numbers and constants without reading them, and contexts and operators (`ast.Load()`,
`ast.Add()`: one shared object each, without children) where the walk skips those anyway.
The children found are `ast.iter_child_nodes`'s, in its order, less those skipped."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator

# Field types of the grammar that never hold a node.
_SCALARS = frozenset({"identifier", "string", "constant", "int"})
# Field types whose nodes are contexts and operators (`SHARED` below).
_SHARED_TYPES = frozenset({"expr_context", "boolop", "operator", "unaryop", "cmpop"})
_FIELD = re.compile(r"(\w+)[?*]? (\w+)")

# Contexts and operators: one shared object each (`ast.Load()`), so no node's child.
SHARED = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)


def _field_types(kind: type) -> dict[str, str] | None:
    """Field name -> its grammar type, from the docstring; None if it does not read as one
    (every field is then walked)."""
    line = (kind.__doc__ or "").strip()
    head, _, rest = line.partition("(")
    if head != kind.__name__ or not rest.endswith(")") or "\n" in line:
        return None
    return {name: grammar for grammar, name in _FIELD.findall(rest)}


@functools.cache
def child_fields(kind: type) -> tuple[str, ...]:
    """The fields of node type `kind` that may hold a node, contexts and operators included,
    last first (walks push children on a stack)."""
    types = _field_types(kind)
    fields = tuple(getattr(kind, "_fields", ()))
    if types is not None:
        fields = tuple(f for f in fields if types.get(f) not in _SCALARS)
    return fields[::-1]


def _own_fields(kind: type) -> tuple[str, ...]:
    """What `own_fields` remembers, found once per node type."""
    types = _field_types(kind)
    if types is None:
        return child_fields(kind)
    return tuple(f for f in child_fields(kind) if types.get(f) not in _SHARED_TYPES)


_OWN_FIELDS: dict[type, tuple[str, ...]] = {}


def own_fields(kind: type) -> tuple[str, ...]:
    """`child_fields` less those that hold contexts or operators (`SHARED`), last first."""
    found = _OWN_FIELDS.get(kind)
    if found is None:
        found = _OWN_FIELDS[kind] = _own_fields(kind)
    return found


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node under it but contexts and operators: `ast.walk` in another order
    (depth first), for what does not depend on the order, several times faster."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for name in own_fields(type(current)):
            value = getattr(current, name, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
