"""How a module already spells what a fix needs, so fixes reuse its imports instead of adding some."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import QualifiedName, QualifiedNameSource

from jaxfix.analysis.cst_names import api_of_qualified_names
from jaxfix.analysis.names import Api

Imports = tuple[tuple[str, str | None], ...]


def _top_level_imports(module: cst.Module) -> Iterator[cst.Import | cst.ImportFrom]:
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from (
                s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom))
            )


def module_spelling(module: cst.Module, name: str) -> tuple[str, Imports]:
    """The local name of module `name` (`jx` for `import jax as jx`), else `name` plus the import."""
    for statement in _top_level_imports(module):
        if not isinstance(statement, cst.Import):
            continue
        for alias in statement.names:
            full = get_full_name_for_node(alias.name)
            if alias.asname is None and (
                full == name or (full or "").startswith(name + ".")
            ):
                return name, ()
            if (
                alias.asname is not None
                and full == name
                and isinstance(alias.asname.name, cst.Name)
            ):
                return alias.asname.name.value, ()
    return name, ((name, None),)


def api_spelling(module: cst.Module, api: Api, from_module: str) -> tuple[str, Imports]:
    """The local name of a top-level `from X import Y [as Z]` of the JAX `api` (e.g. `NamedSharding`),
    else the API's name plus `from from_module import <name>`."""
    for statement in _top_level_imports(module):
        if (
            not isinstance(statement, cst.ImportFrom)
            or statement.module is None
            or statement.relative
            or isinstance(statement.names, cst.ImportStar)
        ):
            continue
        source = get_full_name_for_node(statement.module)
        for alias in statement.names:
            qualified = QualifiedName(
                f"{source}.{get_full_name_for_node(alias.name)}",
                QualifiedNameSource.IMPORT,
            )
            local = alias.asname.name if alias.asname else alias.name
            if (
                isinstance(local, cst.Name)
                and api_of_qualified_names({qualified}) == api
            ):
                return local.value, ()
    return api.value, ((from_module, api.value),)
