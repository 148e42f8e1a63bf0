"""Edits to a module's imports that a rule's fix makes."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from jaxfix.analysis.ast_engine.analysis import Analysis
    from jaxfix.ground.diagnostics import Edit


def unused_imports(
    analysis: Analysis, imported: tuple[str, ...], uses: set[ast.AST]
) -> list[tuple[ast.AST, Edit]]:
    """The edits removing each top-level `from` import of one of the `imported` qualified names
    whose local name is used only in `uses` (what the fix rewrites)."""
    tree = analysis.module.tree
    loads: dict[str, list[ast.Name]] = {}
    for name in analysis.module.parents:  # every node but the module's own
        if isinstance(name, ast.Name):
            loads.setdefault(name.id, []).append(name)
    edits: list[tuple[ast.AST, Edit]] = []
    for statement in tree.body:
        if not isinstance(statement, ast.ImportFrom) or statement.level:
            continue
        unused = [
            alias.asname or alias.name
            for alias in statement.names
            if f"{statement.module}.{alias.name}" in imported
            and loads.get(alias.asname or alias.name)
            and all(n in uses for n in loads[alias.asname or alias.name])
        ]
        if unused:
            edits.append((statement, _without(frozenset(unused))))
    return edits


def _without(names: frozenset[str]) -> Edit:
    """The `from` import without the aliases that bind `names`; removed when none is left."""

    def edit(old: cst.CSTNode) -> cst.CSTNode | cst.RemovalSentinel:
        import libcst as cst  # for the fix, written only when it is applied

        assert isinstance(old, cst.ImportFrom) and not isinstance(
            old.names, cst.ImportStar
        )
        kept = [
            a for a in old.names if (a.evaluated_alias or a.evaluated_name) not in names
        ]
        if not kept:
            return cst.RemovalSentinel.REMOVE
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return old.with_changes(names=kept)

    return edit
