"""The `ast` screen: a cheap, conservative look at a candidate file before LibCST parses it.

Python's own parser reads a file about 13x faster than LibCST. From its tree, `ModuleFacts`
gathers what the rules' preconditions ask about: which JAX APIs the module may mention or call
(through any import spelling, resolved as LibCST's scope resolves qualified names), which
methods it calls and which attribute names it reads. Each rule's `screen` (next to the rule)
says whether it could report on such a module; a file no selected rule keeps is not parsed by
LibCST at all. Every approximation errs toward keeping: imports from any scope count,
shadowing is ignored, a name bound by anything but an import may denote what it spells (as
LibCST says of module-level bindings), `from m import *` makes any name possibly `m.name`, and
a file that `ast` cannot parse is kept (the caller's business).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable

from libcst.metadata import QualifiedName, QualifiedNameSource

from jaxfix.analysis.names import ENTER_METHODS, Api, api_of_qualified_names, imported_name_enters_no_mesh


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


def _api_of(qualified: str) -> Api | None:
    return api_of_qualified_names((QualifiedName(qualified, QualifiedNameSource.IMPORT),))


class _Imports:
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


class ModuleFacts:
    """What a module may mention and call, from one walk of its `ast` tree."""

    def __init__(self, tree: ast.Module) -> None:
        nodes = list(ast.walk(tree))
        self.node_count = len(nodes)
        imports = _Imports(n for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom)))
        apis_of: dict[str, frozenset[Api]] = {}

        def apis(node: ast.AST) -> frozenset[Api]:
            name = full_name(node)
            if name is None:
                return frozenset()
            if name not in apis_of:
                found = (_api_of(q) for q in imports.qualified_names(name))
                apis_of[name] = frozenset(a for a in found if a is not None)
            return apis_of[name]

        self.mentioned: set[Api] = set()
        self.attributes: set[str] = set()
        self.methods_called: set[str] = set()
        self._called: list[frozenset[Api]] = []  # per call whose callee may be an API
        # Decorators, `with` items and entered context managers that an import binds to something
        # that may enter a mesh context in another module (a helper of the project, jax internals).
        self.entered_from_elsewhere = 0

        def from_elsewhere(node: ast.AST) -> bool:
            name = full_name(node)
            return name is not None and any(not imported_name_enters_no_mesh(q) for q in imports.imported_names(name))

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
                if isinstance(node.func, ast.Attribute) and node.func.attr in ENTER_METHODS and node.args:
                    self.entered_from_elsewhere += from_elsewhere(node.args[0])
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.entered_from_elsewhere += sum(from_elsewhere(d) for d in node.decorator_list)
            elif isinstance(node, ast.withitem):
                self.entered_from_elsewhere += from_elsewhere(node.context_expr)

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
        return self.mentions(Api.ABSTRACT_MESH, Api.GET_ABSTRACT_MESH) or self.reads_attribute("abstract_mesh")


def module_facts(source: bytes) -> ModuleFacts | None:
    """The facts of `source`, or None when `ast` cannot parse it (then every rule keeps it)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return ModuleFacts(tree)
