"""Imports a fix needs, added where isort puts them (ruff's `I001` with its default settings),
not after the last import: `import jax` goes among the third-party imports of the module's first
import block, plain imports before `from` imports, each kind by module name.

LibCST's AddImportsVisitor decides what is missing and merges names into an existing `from`
import; only where a new statement lands changes. A statement is never put between a comment
and the import it stands above (a notebook's cell markers are such comments): where the sorted
place is there, the new import stays where AddImportsVisitor put it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor

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


def _key(node: cst.Import | cst.ImportFrom) -> tuple[int, str]:
    """isort's order within a section (force-sort-within-sections off): `import` lines first."""
    return (
        0 if isinstance(node, cst.Import) else 1,
        (_module_name(node) or "").lower(),
    )


def _blank_only(statement: _Statement) -> bool:
    return all(line.comment is None for line in statement.leading_lines)


def _place(block: list[_Statement], new: _Statement) -> list[_Statement] | None:
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
    after = next((i for i, n in group if _key(n) > _key(node)), None)
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
            placed = _place(new_block, statement)
            new_block = placed if placed is not None else [*new_block, statement]
        return added.with_changes(body=(*body[: len(before)], *new_block, *body[end:]))
