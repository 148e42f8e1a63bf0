"""The `ast` screen: a cheap, conservative look at a candidate file before LibCST parses it.

Python's own parser reads a file about 13x faster than LibCST. From its tree, `ModuleFacts`
gathers what the rules' preconditions ask about: which JAX APIs the module may mention or call
(through any import spelling, resolved as LibCST's scope resolves qualified names), which
methods it calls and which attribute names it reads. Each rule's `screen` (next to the rule)
says whether it could report on such a module; a file no selected rule keeps is not parsed by
LibCST at all. Every approximation errs toward keeping: imports from any scope count,
shadowing is ignored, a name bound by anything but an import may denote what it spells (as
LibCST says of module-level bindings), `from m import *` makes any name possibly `m.name`, and
a file that `ast` cannot parse is kept (the caller's business). One question reads other
modules: whether an imported decorator or context manager may enter a mesh context
(`may_enter_mesh_elsewhere`, through the project index's `ast` summaries, never LibCST); the
files it reads become dependencies of the file's result, as the analysis's do.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxfix.analysis.ast_names import AstImports, api_of, full_name
from jaxfix.analysis.names import (
    ENTER_METHODS,
    MESH_CONTEXT_APIS,
    Api,
    imported_name_enters_no_mesh,
)

if TYPE_CHECKING:
    from jaxfix.analysis.project import InProject


class ModuleFacts:
    """What a module may mention and call, from one walk of its `ast` tree."""

    def __init__(self, tree: ast.Module, where: InProject | None = None) -> None:
        nodes = list(ast.walk(tree))
        self.node_count = len(nodes)
        self._where = where
        self._imports = imports = AstImports(
            n for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom))
        )
        apis_of: dict[str, frozenset[Api]] = {}

        def apis(node: ast.AST) -> frozenset[Api]:
            name = full_name(node)
            if name is None:
                return frozenset()
            if name not in apis_of:
                found = (api_of(q) for q in imports.qualified_names(name))
                apis_of[name] = frozenset(a for a in found if a is not None)
            return apis_of[name]

        self.mentioned: set[Api] = set()
        self.attributes: set[str] = set()
        self.methods_called: set[str] = set()
        self._called: list[frozenset[Api]] = []  # per call whose callee may be an API
        # Decorators, `with` items and entered context managers (as written) that an import binds
        # to something that may enter a mesh context in another module: neither the standard
        # library, pytest, NumPy or public JAX (`_cannot_enter_mesh` in contexts.py) nor, as an
        # item, a mesh context API (which `calls` counts).
        # A `with` item or entered context manager that is a name or attribute may be resolved
        # (`ValueModel.resolve`) to a call assigned to it: those calls count too.
        self._from_elsewhere: set[str] = set()
        self._assigned: set[str] = set()
        self._resolved_item = False

        def from_elsewhere(node: ast.AST, *, item: bool, into: set[str]) -> None:
            name = full_name(node)
            imported = imports.imported_names(name) if name is not None else set()
            if name is not None and any(
                not imported_name_enters_no_mesh(q)
                and not (item and api_of(q) in MESH_CONTEXT_APIS)
                for q in imported
            ):
                into.add(name)

        def entered(node: ast.expr) -> None:
            from_elsewhere(node, item=True, into=self._from_elsewhere)
            self._resolved_item |= isinstance(node, (ast.Name, ast.Attribute))

        for node in nodes:
            if isinstance(node, ast.Name):
                self.mentioned |= apis(node)
            elif isinstance(node, ast.Attribute):
                self.attributes.add(node.attr)
                self.mentioned |= apis(node)
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute):
                    self.methods_called.add(node.func.attr)
                called = apis(node.func)
                if called:
                    self._called.append(called)
                if (
                    isinstance(node.func, ast.Attribute)
                    and node.func.attr in ENTER_METHODS
                    and node.args
                ):
                    entered(node.args[0])
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    from_elsewhere(decorator, item=False, into=self._from_elsewhere)
            elif isinstance(node, ast.withitem):
                entered(node.context_expr)
            elif isinstance(
                node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)
            ) and isinstance(node.value, ast.Call):
                from_elsewhere(node.value, item=True, into=self._assigned)

    def may_enter_mesh_elsewhere(self) -> bool:
        """Whether a decorator, `with` item or entered context manager of this module may be a
        function of another module of the tree that enters a mesh context the analysis could
        know (jaxfix/analysis/imported_contexts.py, which mirrors `_decorator_sites` and
        `_context_manager_function` of jaxfix/analysis/contexts.py). It reads those modules
        through the project index (`ast` only), and records them as dependencies of the file's
        result; False without a file on disk (the analysis follows no import then)."""
        names = self._from_elsewhere | (
            self._assigned if self._resolved_item else set()
        )
        if not names:
            return False
        from jaxfix.analysis.imported_contexts import may_enter_known_mesh

        return may_enter_known_mesh(sorted(names), self._imports, self._where)

    def mentions(self, *apis: Api) -> bool:
        """Whether some name or attribute chain may denote one of `apis`."""
        return not self.mentioned.isdisjoint(apis)

    def calls(self, *apis: Api) -> int:
        """How many calls may call one of `apis`."""
        return sum(1 for called in self._called if not called.isdisjoint(apis))

    def calls_method(self, name: str) -> bool:
        """Whether some call's callee is an attribute `name` (`x.lower(...)`)."""
        return name in self.methods_called

    def reads_attribute(self, name: str) -> bool:
        return name in self.attributes

    def may_build_abstract_mesh(self) -> bool:
        """`AbstractMesh(...)`, `mesh.abstract_mesh` or `get_abstract_mesh()`: the abstract meshes
        the value model knows."""
        return self.mentions(
            Api.ABSTRACT_MESH, Api.GET_ABSTRACT_MESH
        ) or self.reads_attribute("abstract_mesh")


def module_facts(source: bytes, where: InProject | None = None) -> ModuleFacts | None:
    """The facts of `source`, or None when `ast` cannot parse it (then every rule keeps it).
    `where`: the file's place in the project, to follow its imports (see
    `ModuleFacts.may_enter_mesh_elsewhere`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return ModuleFacts(tree, where)
