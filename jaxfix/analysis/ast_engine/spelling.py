"""How a module already spells a module a fix needs (`jx` for `import jax as jx`), so fixes
reuse its imports instead of adding some: its top-level `import` statements, over `ast`."""

from __future__ import annotations

import ast

Imports = tuple[tuple[str, str | None], ...]


def module_spelling(tree: ast.Module, name: str) -> tuple[str, Imports]:
    """The local name of module `name`, else `name` plus the import a fix must add."""
    for statement in tree.body:
        if not isinstance(statement, ast.Import):
            continue
        for alias in statement.names:
            if alias.asname is None and (
                alias.name == name or alias.name.startswith(name + ".")
            ):
                return name, ()
            if alias.asname is not None and alias.name == name:
                return alias.asname, ()
    return name, ((name, None),)
