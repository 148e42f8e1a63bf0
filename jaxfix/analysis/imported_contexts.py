"""Whether a decorator or context manager imported from another module of the tree may enter a
mesh context whose mesh the analysis could know, decided from `ast` alone (the screen's mirror
of the cross-module paths of jaxfix/analysis/contexts.py; never LibCST).

`ContextModel.contexts_at` gets a known mesh from another module in two ways only, both from a
`def` at the top level of a module of the tree that imports and re-exports lead to
(`ModuleAnalysis.external_definition`):
- a decorator function whose body enters a mesh context (`ContextModel.enters_mesh`): the
  contexts around the one call of the decorated function in the wrapper it (or the decorator a
  factory returns) builds;
- a `@contextmanager` function called in a `with` item or `enter_context(...)`: the contexts
  around its one `yield`.
Those contexts are found in the helper's module as in any module (`with` items, entered context
managers, bare `set_mesh(m)` calls; `resolve` follows a name or `self.x` to the one value bound
to it in that module), so a known mesh ends at a call of a mesh context API
(`MESH_CONTEXT_APIS`: `use_abstract_mesh`, `set_mesh`, `use_mesh`) in some module, reached
through `@contextmanager` functions of the helper's module or of modules it imports.
Everything else another module offers gives an unknown mesh or no context, which JAX002 never
reports on: a class (its `__enter__` is not looked into), a value (`with_mesh = partial(...)`),
a star import, a name the index does not find (outside the tree, a missing or unparsable
module, an import cycle: `Unknown`).

`may_enter_known_mesh` therefore asks whether, from the imported function, a call that may be a
mesh context API is reachable through: its body (nested functions included: the wrapper, a
factory's decorator); the functions of its module that it names (the analysis follows calls of
them and `@contextmanager` ones); its module's code outside functions when one of its `with`
items or entered context managers is a name or attribute (`resolve`); and the functions of
other modules of the tree that its `with` items, entered context managers and assigned values
call, up to `_MAX_MODULES` modules away, where it is assumed to (the file is kept). Every
approximation keeps: names count whatever scope binds them, `@contextmanager` and entering a
mesh are not required, and a module too large for the project index to analyse is still
followed here. Each file read and place looked at is recorded as the analysis records it: the
screen's answer depends on them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jaxfix.analysis.ast_names import AstImports, api_of, full_name
from jaxfix.analysis.names import (
    ENTER_METHODS,
    MESH_CONTEXT_APIS,
    imported_name_enters_no_mesh,
)
from jaxfix.analysis.project import (
    Analysed,
    Definition,
    InProject,
    Layout,
    ProjectIndex,
    follow_import,
)
from jaxfix.analysis.values import Unknown

_MAX_MODULES = 4  # modules away from the file; further, a mesh is assumed to be entered
_OUTSIDE = ""  # the code of a module outside its top-level functions (no function has this name)


@dataclass
class _Body:
    """What one function (or a module's code outside them) may lead to."""

    mesh_call: bool = False  # a call that may be a mesh context API
    names: set[str] = field(
        default_factory=set
    )  # names it reads (the module's functions among them)
    called: set[str] = field(
        default_factory=set
    )  # what its `with` items, entered and assigned calls call
    resolved: bool = (
        False  # a `with` item or entered context manager that is a name or attribute
    )


@dataclass(frozen=True)
class _ModuleBodies:
    """A module of the tree as read for its helpers: its imports, and what each top-level
    function (and the code outside them) calls and enters."""

    imports: AstImports
    bodies: dict[str, _Body]  # top-level functions by name, and `_OUTSIDE`


def _read_module(path: Path, source: bytes) -> _ModuleBodies | Unknown:
    """The facts of one module of the tree (cached by the index with its content)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return Unknown(f"{path.name} does not parse")
    imports = AstImports(
        n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
    )
    bodies: dict[str, _Body] = {_OUTSIDE: _Body()}
    stack: list[tuple[ast.AST, _Body]] = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.append(
                (statement, bodies.setdefault(statement.name, _Body()))
            )  # a name def'd twice: both
        else:
            stack.append((statement, bodies[_OUTSIDE]))
    mesh_apis: dict[str, bool] = {}  # by callee name

    def is_mesh_api(name: str) -> bool:
        if name not in mesh_apis:
            mesh_apis[name] = any(
                api_of(q) in MESH_CONTEXT_APIS for q in imports.qualified_names(name)
            )
        return mesh_apis[name]

    while stack:
        node, body = stack.pop()
        _note(node, body, is_mesh_api)
        stack.extend((child, body) for child in ast.iter_child_nodes(node))
    return _ModuleBodies(imports, bodies)


def _note(node: ast.AST, body: _Body, is_mesh_api: Callable[[str], bool]) -> None:
    """What the analysis may follow from `node`: a call that may be a mesh context API
    (`MESH_CONTEXT_APIS`), a name read (a function or `@contextmanager` of this module), a
    `with` item or `enter_context` argument, or an assigned call (what `resolve` leads a
    `with` item to)."""
    if isinstance(node, ast.Name):
        body.names.add(node.id)
    elif isinstance(node, ast.Call):
        name = full_name(node.func)
        if name is not None and is_mesh_api(name):
            body.mesh_call = True
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in ENTER_METHODS
            and node.args
        ):
            _entered(node.args[0], body)
    elif isinstance(node, ast.withitem):
        _entered(node.context_expr, body)
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and isinstance(
        node.value, ast.Call
    ):
        _entered(
            node.value, body
        )  # a `with` of the name bound to it is resolved to this call


def _entered(expr: ast.expr, body: _Body) -> None:
    name = full_name(expr)
    if isinstance(expr, ast.Call) and name is not None:
        body.called.add(name)
    elif isinstance(expr, (ast.Name, ast.Attribute)):
        body.resolved = True


class _Screen:
    """One question from one file: the index, and where the files read and places looked at
    go (the file's `InProject`, so that they become dependencies of its result)."""

    def __init__(self, where: InProject) -> None:
        self.project: ProjectIndex[Analysed] | None = where.index
        self.layout: Layout = where.layout
        self._used = where.used
        self._seen: set[tuple[Path, str]] = set()

    def depends_on(self, path: Path) -> None:
        self._used.add(path)

    def functions(
        self, imports: AstImports, name: str, importer: Path
    ) -> Iterable[Definition]:
        """The functions of other modules of the tree that imports make of `name` (as the
        analysis' `external_definition` finds them), each once per question."""
        if all(imported_name_enters_no_mesh(q) for q in imports.imported_names(name)):
            return  # the analysis does not look either (no import binds it, or stdlib...)
        for target, attributes in imports.targets(name):
            found = follow_import(self, target, importer, attributes)
            if (
                isinstance(found, Definition)
                and found.is_function
                and (found.path, found.name) not in self._seen
            ):
                self._seen.add((found.path, found.name))
                yield found

    def reaches_mesh_call(self, function: Definition, modules: int) -> bool:
        """Whether a call that may be a mesh context API is reachable from `function` (see the
        module docstring); True `_MAX_MODULES` modules away."""
        if modules >= _MAX_MODULES:
            return True
        assert self.project is not None
        module = self.project.derived(function.path, _read_module)
        self.depends_on(function.path)
        if isinstance(module, Unknown):
            return False  # the index's summary does not parse either: nothing is defined there
        todo, done = [function.name], set()
        while todo:
            name = todo.pop()
            body = module.bodies.get(name)
            if body is None or name in done:
                continue
            done.add(name)
            if body.mesh_call:
                return True
            todo.extend(n for n in body.names if n in module.bodies)
            if body.resolved:
                todo.append(_OUTSIDE)
            for called in body.called:
                if any(
                    self.reaches_mesh_call(f, modules + 1)
                    for f in self.functions(module.imports, called, function.path)
                ):
                    return True
        return False


def may_enter_known_mesh(
    names: Iterable[str], imports: AstImports, where: InProject | None
) -> bool:
    """Whether one of `names` (decorators, `with` items and entered context managers of a file,
    spelled as written there) may be a function of another module of the tree that enters a
    mesh context with a mesh the analysis could know. False without a project index: the
    analysis then follows no import either."""
    if where is None:
        return False
    screen = _Screen(where)
    return any(
        screen.reaches_mesh_call(function, 1)
        for name in names
        for function in screen.functions(imports, name, where.path)
    )
