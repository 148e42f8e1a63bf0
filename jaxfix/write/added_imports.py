"""Imports a fix needs, added where isort puts them (ruff's `I001` with the project's
`[tool.ruff.lint.isort]` settings that order: force-sort-within-sections, order-by-type,
case-sensitive), not after the last import: `import jax` goes among the third-party imports of
the module's first import block, plain imports before `from` imports, each kind by module name;
a name merged into a sorted `from` import takes its sorted place among the names (never into
one holding only `as` names, which isort keeps on their own line unless combine-as-imports is
set; a file that already combines them is followed).

What is missing, and where a new statement first goes, is decided as LibCST's AddImportsVisitor
decides it (the imports at the top of the module, after a docstring; a name merged into the
first `from` import of its module there; new statements after that block, a blank line before
the code), without libcst.codemod: it loads libcst.matchers, ~0.25 s of CPU, more than a fix of
a small file costs (tests/write/test_added_imports.py compares the two). Only where a new
statement lands changes. A statement is never put between a comment and the import it stands
above (a notebook's cell markers are such comments): where the sorted place is there, the new
import stays where AddImportsVisitor puts it.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Any

import libcst as cst
from libcst.helpers import get_full_name_for_node

from jaxfix.settings.options import ImportOrder

_Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement
_RUFF_DEFAULTS = ImportOrder()


def _import(statement: cst.CSTNode) -> cst.Import | cst.ImportFrom | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        node = statement.body[0]
        return node if isinstance(node, (cst.Import, cst.ImportFrom)) else None
    return None


def _module_name(node: cst.Import | cst.ImportFrom) -> str | None:
    """The imported module's dotted name; None for a relative import."""
    if isinstance(node, cst.Import):
        return get_full_name_for_node(node.names[0].name)
    if node.relative or node.module is None:
        return None
    return get_full_name_for_node(node.module)


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
    # Two `from` imports of one module (an aliased name on its own line) go by their first name.
    first = (
        _member_key(node.names[0], order)
        if isinstance(node, cst.ImportFrom)
        and not isinstance(node.names, cst.ImportStar)
        else ()
    )
    if order.force_sort_within_sections:
        return (name, kind, first)
    return (kind, name, first)


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


def _top_import(statement: cst.CSTNode) -> cst.Import | cst.ImportFrom | None:
    """The import a statement of the module's first block is: a line holding one import alone."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        node = statement.body[0]
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            return node
    return None


def _skip_first(module: cst.Module) -> bool:
    """Whether the module starts with a docstring or a `__strict__ = ...` flag, which no import
    goes above."""
    if not module.body:
        return False
    first = module.body[0]
    if not isinstance(first, cst.SimpleStatementLine) or len(first.body) != 1:
        return False
    node = first.body[0]
    if isinstance(node, cst.Assign):
        return (
            len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and node.targets[0].target.value == "__strict__"
        )
    return isinstance(node, cst.Expr) and isinstance(node.value, cst.SimpleString)


def _absolute(node: cst.ImportFrom) -> str | None:
    """The module a `from` import names; None for a relative one (no package is known)."""
    if node.relative:
        return None
    return get_full_name_for_node(node.module) if node.module is not None else None


def _split_module(
    original: cst.Module, updated: cst.Module
) -> tuple[list[_Statement], list[_Statement], list[_Statement]]:
    """`updated`'s statements before the first import block (a docstring), the block (the
    imports at the top of `original`), and the rest."""
    before = add_at = 1 if _skip_first(original) else 0
    for index, statement in enumerate(original.body[before:]):
        if _top_import(statement) is None:
            break
        add_at = index + before + 1
    return (
        list(updated.body[:before]),
        list(updated.body[before:add_at]),
        list(updated.body[add_at:]),
    )


def _with_blank_line(statements: list[_Statement]) -> list[_Statement]:
    """Blank lines between the imports added and the first statement after them, as isort's
    automatic `lines-after-imports` puts them: two before a class or function, else one."""
    if not statements:
        return statements
    first = statements[0]
    wanted = 2 if isinstance(first, (cst.ClassDef, cst.FunctionDef)) else 1
    blank = 0
    for line in first.leading_lines:
        if line.comment is not None:
            break
        blank += 1
    if blank >= wanted:
        return statements
    added = tuple(cst.EmptyLine() for _ in range(wanted - blank))
    return [
        first.with_changes(leading_lines=(*added, *first.leading_lines)),
        *statements[1:],
    ]


class _AddImports(cst.CSTTransformer):
    """`imports` ((module, None) for `import module`, (module, name) for `from module import
    name`) added where missing. With `order` None, the statements are where LibCST's
    AddImportsVisitor puts them and the names merged go first (what the tests compare with it);
    else as isort sorts them (`_place`, `_sorted_names`)."""

    def __init__(
        self, imports: Sequence[tuple[str, str | None]], order: ImportOrder | None
    ) -> None:
        super().__init__()
        if any(module == "__future__" and name is None for module, name in imports):
            raise ValueError("Cannot import __future__ directly!")
        self.order = order
        self.modules = {module for module, name in imports if name is None}
        self.names: dict[str, set[str]] = {
            module: {n for m, n in imports if m == module and n is not None}
            for module in sorted({m for m, n in imports if n is not None})
        }
        self.top: list[cst.Import | cst.ImportFrom] = []

    def visit_Module(self, node: cst.Module) -> None:
        start = 1 if _skip_first(node) else 0
        for statement in node.body[start:]:
            found = _top_import(statement)
            if found is None:
                break
            self.top.append(found)
        imported: set[str] = set()
        imported_names: dict[str, set[str]] = {}
        for found in self.top:
            if isinstance(found, cst.Import):
                imported.update(
                    a.evaluated_name for a in found.names if a.evaluated_alias is None
                )
                continue
            module = _absolute(found)
            if module is None:
                continue
            if isinstance(found.names, cst.ImportStar):
                imported_names[module] = {"*"}
                continue
            names = {a.evaluated_name for a in found.names if a.asname is None}
            if names:
                known = imported_names.setdefault(module, set())
                if "*" in known:
                    imported_names[module] = {"*"}
                else:
                    known.update(names)
        self.modules -= imported
        for module, names in imported_names.items():
            if module not in self.names:
                continue
            if "*" in names:
                del self.names[module]
                continue
            self.names[module] = self.names[module] - names
            if not self.names[module]:
                del self.names[module]

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom:
        if isinstance(updated_node.names, cst.ImportStar) or not any(
            original_node is node for node in self.top
        ):
            return updated_node
        module = _absolute(updated_node)
        if module is None or module not in self.names:
            return updated_node
        if (
            self.order is not None
            and not self.order.combine_as_imports
            and all(alias.asname is not None for alias in updated_node.names)
        ):
            return updated_node  # isort keeps aliased imports apart: a new statement
        added = self.names.pop(module)
        merged = updated_node.with_changes(
            names=[
                *(cst.ImportAlias(name=cst.Name(name)) for name in sorted(added)),
                *updated_node.names,
            ]
        )
        if self.order is None:
            return merged
        names = _sorted_names(updated_node.names, merged.names, self.order)
        return merged if names is None else merged.with_changes(names=names)

    def leave_Module(
        self, original_node: cst.Module, updated_node: cst.Module
    ) -> cst.Module:
        before, block, after = _split_module(original_node, updated_node)
        if not self.modules and not self.names:
            added = updated_node
        else:
            config = updated_node.config_for_parsing
            added = updated_node.with_changes(
                body=(
                    *before,
                    *self._from_imports(config, future=True),
                    *block,
                    *(
                        cst.parse_statement(f"import {module}", config=config)
                        for module in sorted(self.modules)
                    ),
                    *self._from_imports(config, future=False),
                    *_with_blank_line(after),
                )
            )
        if self.order is None:
            return added
        body: Sequence[_Statement] = added.body
        start, end = len(before) + len(block), len(body) - len(after)
        if start > end or not block:
            return added
        new_block = list(body[len(before) : start])
        for statement in body[start:end]:
            placed = _place(new_block, statement, self.order)
            new_block = placed if placed is not None else [*new_block, statement]
        return added.with_changes(body=(*body[: len(before)], *new_block, *body[end:]))

    def _from_imports(
        self, config: cst.PartialParserConfig, *, future: bool
    ) -> list[_Statement]:
        return [
            cst.parse_statement(
                f"from {module} import {', '.join(sorted(names))}", config=config
            )
            for module, names in self.names.items()
            if (module == "__future__") == future
        ]


def add_imports(
    module: cst.Module,
    imports: Sequence[tuple[str, str | None]],
    order: ImportOrder | None = _RUFF_DEFAULTS,
) -> cst.Module:
    """`module` with `imports` ((module, None): `import module`; (module, name): `from module
    import name`) where it lacks them, placed as the class above says."""
    return module.visit(_AddImports(imports, order))
