"""Imports a fix needs, added where isort puts them (ruff's `I001` with the project's
`[tool.ruff.lint.isort]` settings that order: force-sort-within-sections, order-by-type,
case-sensitive), not after the last import: `import jax` goes among the third-party imports of
the module's first import block, plain imports before `from` imports, each kind by module name;
a name merged into a sorted `from` import takes its sorted place among the names.

LibCST's AddImportsVisitor decides what is missing and merges names into an existing `from`
import; only where a new statement lands changes. A statement is never put between a comment
and the import it stands above (a notebook's cell markers are such comments): where the sorted
place is there, the new import stays where AddImportsVisitor put it.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Any

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from jaxfix.settings.options import ImportOrder

_Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


def _import(statement: cst.CSTNode) -> cst.Import | cst.ImportFrom | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        node = statement.body[0]
        return node if isinstance(node, (cst.Import, cst.ImportFrom)) else None
    return None


def _module_name(node: cst.Import | cst.ImportFrom) -> str | None:
    """The imported module's dotted name; None for a relative import."""
    if isinstance(node, cst.Import):
        return cst.helpers.get_full_name_for_node(node.names[0].name)
    if node.relative or node.module is None:
        return None
    return cst.helpers.get_full_name_for_node(node.module)


def _third_party(node: cst.Import | cst.ImportFrom) -> bool:
    name = _module_name(node)
    return (
        name is not None
        and name.split(".")[0] not in sys.stdlib_module_names
        and name != "__future__"
    )


def _name_key(name: str, order: ImportOrder) -> tuple[str, ...]:
    """ruff's comparison of two names: case-insensitive first unless case-sensitive is set."""
    return (name,) if order.case_sensitive else (name.lower(), name)


def _key(node: cst.Import | cst.ImportFrom, order: ImportOrder) -> tuple[Any, ...]:
    """isort's order within a section: `import` lines first, unless force-sort-within-sections
    sorts both kinds by module name."""
    kind = 0 if isinstance(node, cst.Import) else 1
    name = _name_key(_module_name(node) or "", order)
    return (name, kind) if order.force_sort_within_sections else (kind, name)


def _member_key(alias: cst.ImportAlias, order: ImportOrder) -> tuple[Any, ...]:
    """ruff's order of the names of a `from` import: with order-by-type, CONSTANTS, then
    Classes, then the rest (ruff_linter's isort `MemberKey`)."""
    name = alias.evaluated_name
    kind = 0
    if order.order_by_type:
        if len(name) > 1 and name.isupper():
            kind = 0
        elif name[:1].isupper():
            kind = 1
        else:
            kind = 2
    return (kind, _name_key(name, order), alias.evaluated_alias or "")


def _sorted_names(
    original: Sequence[cst.ImportAlias],
    names: Sequence[cst.ImportAlias],
    order: ImportOrder,
) -> list[cst.ImportAlias] | None:
    """`names` (the original's and the added ones) in ruff's order, where the original's were
    in it (a file not kept sorted keeps its order); the separators stay where they were."""
    key = functools.partial(_member_key, order=order)
    if list(original) != sorted(original, key=key) or len(names) == len(original):
        return None
    separators = [
        alias.comma for alias in original[:-1] if isinstance(alias.comma, cst.Comma)
    ]
    separator = (
        separators[0]
        if separators
        else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    )
    ordered = sorted(names, key=key)
    return [
        alias.with_changes(
            comma=original[-1].comma if index == len(ordered) - 1 else separator
        )
        for index, alias in enumerate(ordered)
    ]


def _blank_only(statement: _Statement) -> bool:
    return all(line.comment is None for line in statement.leading_lines)


def _place(
    block: list[_Statement], new: _Statement, order: ImportOrder
) -> list[_Statement] | None:
    """`block` (the module's first imports) with `new` in its sorted place; None when that place
    is not one to write at."""
    node = _import(new)
    if node is None or not _third_party(node):
        return None
    # isort's sections are runs of imports between blank lines: the run that holds this package
    # (else the first run with a third-party import), its third-party imports.
    runs: list[list[tuple[int, cst.Import | cst.ImportFrom]]] = []
    for index, statement in enumerate(block):
        found = _import(statement)
        if not runs or statement.leading_lines:
            runs.append([])
        if found is not None and _third_party(found):
            runs[-1].append((index, found))
    root = (_module_name(node) or "").split(".")[0]
    same = [
        run
        for run in runs
        if any((_module_name(n) or "").split(".")[0] == root for _, n in run)
    ]
    group = next(iter(same or [run for run in runs if run]), None)
    if group is None:
        return None
    after = next((i for i, n in group if _key(n, order) > _key(node, order)), None)
    if after is None:  # last of its group
        position = group[-1][0] + 1
        placed = new.with_changes(leading_lines=())
        return [*block[:position], placed, *block[position:]]
    following = block[after]
    if not _blank_only(following):
        return None
    placed = new.with_changes(leading_lines=following.leading_lines)
    return [
        *block[:after],
        placed,
        following.with_changes(leading_lines=()),
        *block[after + 1 :],
    ]


class SortedAddImportsVisitor(AddImportsVisitor):
    def __init__(
        self, context: CodemodContext, order: ImportOrder = ImportOrder()
    ) -> None:
        super().__init__(context)
        self.order = order

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom:
        merged = super().leave_ImportFrom(original_node, updated_node)
        if isinstance(updated_node.names, cst.ImportStar) or isinstance(
            merged.names, cst.ImportStar
        ):
            return merged
        names = _sorted_names(updated_node.names, merged.names, self.order)
        return merged if names is None else merged.with_changes(names=names)

    def leave_Module(
        self, original_node: cst.Module, updated_node: cst.Module
    ) -> cst.Module:
        added = super().leave_Module(original_node, updated_node)
        before, block, after = self._split_module(original_node, updated_node)
        body: Sequence[_Statement] = added.body
        start, end = len(before) + len(block), len(body) - len(after)
        if start > end or not block:
            return added
        new_block = list(body[len(before) : start])
        for statement in body[start:end]:
            placed = _place(new_block, statement, self.order)
            new_block = placed if placed is not None else [*new_block, statement]
        return added.with_changes(body=(*body[: len(before)], *new_block, *body[end:]))
