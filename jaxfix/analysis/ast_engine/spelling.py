"""How a module already spells a module or a JAX API a fix needs (`jx` for `import jax as jx`,
`NS` for `from jax.sharding import NamedSharding as NS`), so fixes reuse its imports instead of
adding some: its top-level `import` statements, over `ast`."""

from __future__ import annotations

import ast

from jaxfix.analysis.names import Api, api_of_name

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


def api_spelling(tree: ast.Module, api: Api, from_module: str) -> tuple[str, Imports]:
    """The local name a top-level `from X import Y [as Z]` gives the JAX `api`, else the API's
    name plus `from from_module import <name>`."""
    for statement in tree.body:
        if (
            not isinstance(statement, ast.ImportFrom)
            or statement.module is None
            or statement.level
        ):
            continue
        for alias in statement.names:
            if (
                alias.name != "*"
                and api_of_name(f"{statement.module}.{alias.name}") is api
            ):
                return alias.asname or alias.name, ()
    return api.value, ((from_module, api.value),)
