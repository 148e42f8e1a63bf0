"""What a name may denote in a module read with the stdlib `ast` (for the screen, which must not
pay for LibCST): the qualified names imports give it, as LibCST's scopes do, and the imports that
bind it as the project index follows them (jaxfix/analysis/project.py)."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable

from libcst.metadata import QualifiedName, QualifiedNameSource

from jaxfix.analysis.cst_names import api_of_qualified_names
from jaxfix.analysis.names import Api
from jaxfix.analysis.project import ImportTarget


def full_name(node: ast.AST) -> str | None:
    """The dotted name LibCST's `get_full_name_for_node` gives the same expression: calls and
    subscripts stand for what they call or index, so `jax.jit(f)(x)` is a call of `jax.jit`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{full_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return full_name(node.func)
    if isinstance(node, ast.Subscript):
        return full_name(node.value)
    return None


def api_of(qualified: str) -> Api | None:
    return api_of_qualified_names(
        (QualifiedName(qualified, QualifiedNameSource.IMPORT),)
    )


class AstImports:
    """Every import statement of a module, by the first part of each name it binds."""

    def __init__(self, statements: Iterable[ast.Import | ast.ImportFrom]) -> None:
        self.by_head: dict[str, list[ast.Import | ast.ImportFrom]] = defaultdict(list)
        self.star_modules: list[str] = []
        for statement in statements:
            module = _module_of(statement)
            for alias in statement.names:
                if alias.name == "*":
                    self.star_modules.append(module)
                    continue
                bound = alias.asname or alias.name
                self.by_head[bound.partition(".")[0]].append(statement)

    def qualified_names(self, name: str) -> set[str]:
        """What `name` may denote: itself (a module-level binding or none), what any import
        binding its first part makes of it (LibCST's `ImportAssignment` rules), and `m.name`
        for every `from m import *`."""
        return {name} | self.imported_names(name)

    def imported_names(self, name: str) -> set[str]:
        """What imports may make of `name` (none when no import binds its first part)."""
        found: set[str] = set()
        for statement in self.by_head.get(name.partition(".")[0], ()):
            found |= _through_import(name, statement)
        for module in self.star_modules:
            found.add(f"{module}{name}" if module.endswith(".") else f"{module}.{name}")
        return found

    def targets(self, name: str) -> set[tuple[ImportTarget, tuple[str, ...]]]:
        """For a dotted `name`, each import that binds its first part, as the project index
        follows it (project.py's `_import_target`: `import a.b` binds `a` to module `a`,
        `import a.b as m` binds `m` to `a.b`, `from .a import b as m` binds `m` to member `b` of
        `.a`), with the attributes taken of what it binds. Star imports bind no name LibCST
        knows of, so the analysis follows none: neither does this."""
        head, *attributes = name.split(".")
        found: set[tuple[ImportTarget, tuple[str, ...]]] = set()
        for statement in self.by_head.get(head, ()):
            for alias in statement.names:
                if isinstance(statement, ast.Import):
                    if alias.asname is None and alias.name.split(".")[0] == head:
                        found.add(((head, 0, None), tuple(attributes)))
                    elif alias.asname == head:
                        found.add(((alias.name, 0, None), tuple(attributes)))
                elif (alias.asname or alias.name) == head:
                    found.add(
                        (
                            (statement.module or "", statement.level, alias.name),
                            tuple(attributes),
                        )
                    )
        return found


def _module_of(statement: ast.Import | ast.ImportFrom) -> str:
    if isinstance(statement, ast.Import):
        return ""
    return "." * statement.level + (statement.module or "")


def _through_import(name: str, statement: ast.Import | ast.ImportFrom) -> set[str]:
    """LibCST's `ImportAssignment.get_qualified_names_for`, on `ast`'s import nodes."""
    module = _module_of(statement)
    found = set()
    for alias in statement.names:
        parts = alias.name.split(".")
        for real_name in (".".join(parts[:i]) for i in range(len(parts), 0, -1)):
            as_name = alias.asname or real_name
            if module.endswith("."):
                real_name = f"{module}{real_name}"
            elif module:
                real_name = f"{module}.{real_name}"
            if name.startswith(as_name):
                remaining = name.split(as_name, 1)[1]
                if remaining and not remaining.startswith("."):
                    continue
                remaining = remaining.lstrip(".")
                found.add(f"{real_name}.{remaining}" if remaining else real_name)
                break
    return found
