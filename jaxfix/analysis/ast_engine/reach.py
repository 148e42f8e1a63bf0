"""Which functions a call may run, followed out of the module and into installed libraries,
for a question about what code under a block does (JAX102: code that reads the mesh of the
legacy `with mesh:`).

From each call: the function, class (its constructor, and the methods it calls on `self` or
`super()`) or bound method the engine gives its callee; a callee imported from outside the
tree (`External`) is looked for among the installed modules, by the import system's own
search (`importlib.machinery.PathFinder` over `sys.path`: where jaxfix runs in the project's
environment, the project's libraries), read as source and never imported or run. JAX and the
standard library are never entered. Where the engine gives a name no value (a class behind
a registering decorator it does not see through), the `def` or `class` the imports and
definitions name as written stands for it (a decorator that keeps the body runs it). Then
the calls in each function reached, breadth first, up to `MAX_FUNCTIONS` functions: a
question that needs more is answered "nothing found". What a function does when called in a
way the engine cannot name (a parameter, a value returned by unseen code) is not followed;
for that, `imported_reader` answers the coarser question: which installed module the modules
reached import from (or the modules of its package that module imports, two steps) defines a
function of the kind asked.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.machinery import PathFinder
from pathlib import Path

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    BoundMethod,
    Class,
    External,
    Foreign,
    Function,
    Instance,
    Unknown,
)

MAX_FUNCTIONS = 400
_NEVER_ENTERED = frozenset({"jax", "jaxlib", *sys.stdlib_module_names})
_SITE_DIRS = frozenset({"site-packages", "dist-packages"})
_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
# Every `from .x import y` (any number of dots) of a module's bytes matches: the keyword, then
# blanks or line continuations, then a dot (an encoding Python reads source in keeps ASCII).
_MAY_IMPORT_RELATIVELY = re.compile(rb"from(?:[ \t\f]|\\\r?\n|\\\r)*\.")


@dataclass(frozen=True)
class Reached:
    """A function a call reaches: its `def`, the file it is in, and the calls that lead
    there from the first one (each `name (file:line)`)."""

    start: ast.Call
    node: ast.FunctionDef | ast.AsyncFunctionDef
    path: Path
    chain: tuple[str, ...]


class Reach:
    """The functions calls may run, over one run's engine (`first(...)`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._installed: dict[str, Path | None] = {}
        self._near: dict[
            Path, tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path] | None
        ] = {}
        self.modules: dict[Path, None] = {}

    def first(
        self,
        module: Module,
        calls: Iterable[ast.Call],
        wanted: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], bool],
    ) -> Reached | None:
        """The first function (breadth first) that `calls` in `module` may run for which
        `wanted(def)` holds, or None."""
        queue: list[tuple[Module, ast.Call, tuple[str, ...], ast.Call]] = [
            (module, c, (), c) for c in calls
        ]
        seen: set[int] = set()
        self.modules = {module.path: None}  # the modules of the tree reached, in order
        index = 0
        while index < len(queue) and len(seen) < MAX_FUNCTIONS:
            where, call, chain, start = queue[index]
            index += 1
            for target, path in self._targets(where, call):
                if id(target) in seen or _never_entered(path):
                    continue
                seen.add(id(target))
                found = self.engine.project.module(path)
                if not isinstance(found, Module):
                    continue
                if not _installed(path):
                    self.modules.setdefault(path, None)
                owner = found.parents.get(target)
                name = (
                    f"{owner.name}.{target.name}"
                    if isinstance(owner, ast.ClassDef)
                    else target.name
                )
                step = (*chain, f"{name} ({_short_path(path)}:{target.lineno})")
                if wanted(target):
                    return Reached(start, target, path, step)
                queue.extend(
                    (found, c, step, start)
                    for c in ast.walk(target)
                    if isinstance(c, ast.Call)
                )
        return None

    def imported_reader(
        self,
        paths: Iterable[Path],
        wanted: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], bool],
        word: bytes | None = None,
    ) -> tuple[Path, str, ast.FunctionDef | ast.AsyncFunctionDef, Path] | None:
        """The first installed module (not JAX's) that a module at `paths` imports from,
        which defines, or whose own package modules it imports define, a function for
        which `wanted` holds: (importer, the import as written, that function, its file).
        `word`: a name every function `wanted` holds for reads (so its module's source
        holds it): a module without it is not searched for one, only for its imports."""
        for importer in paths:
            module = self.engine.project.module(importer)
            if not isinstance(module, Module):
                continue
            for statement in module.statements_in_walk_order(
                ast.Import, ast.ImportFrom
            ):
                if isinstance(statement, ast.ImportFrom) and not statement.level:
                    dotted = statement.module or ""
                    names = [f"{dotted}.{a.name}" for a in statement.names]
                elif isinstance(statement, ast.Import):
                    names = [a.name for a in statement.names]
                else:
                    continue
                for name in names:
                    if name.partition(".")[0] in _NEVER_ENTERED:
                        continue
                    if not isinstance(
                        self.engine.project.find(
                            name.rpartition(".")[0] or name, 0, importer
                        ),
                        Unknown,
                    ):
                        continue  # of the tree: followed by calls only
                    file = self._installed_module(name)
                    if file is None:
                        definition = self._installed_definition(name)
                        file = definition[1] if definition is not None else None
                    if file is None:
                        continue
                    found = self._reader_near(file, wanted, word)
                    if found is not None:
                        return importer, name, found[0], found[1]
        return None

    def _reader_near(
        self,
        file: Path,
        wanted: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], bool],
        word: bytes | None,
    ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path] | None:
        """A function `wanted` in `file`, or in a module of its package that it imports
        (`word`: see `imported_reader`; most modules lack it, and asking `wanted` of each of
        their functions walks each function again)."""
        if file in self._near:
            return self._near[file]
        self._near[file] = None
        found = None
        pending: list[tuple[Path, int]] = [(file, 0)]
        looked: set[Path] = set()
        while pending and found is None:
            path, depth = pending.pop(0)
            if path in looked or _never_entered(path) or len(looked) > 32:
                continue
            looked.add(path)
            if word is not None:
                # as below, without parsing it: a module without `word` is only looked at
                # for its relative imports (above depth 2), which its bytes may rule out
                code = self.engine.project.code(path)
                if code is None or (
                    word not in code
                    and (depth >= 2 or not _MAY_IMPORT_RELATIVELY.search(code))
                ):
                    continue
            module = self.engine.project.module(path)
            if not isinstance(module, Module):
                continue
            searched = word is None or word in module.source
            if not searched and depth >= 2:
                continue  # neither a function of it nor its imports are looked at
            for node in module.statements_in_walk_order(
                ast.FunctionDef, ast.AsyncFunctionDef, ast.ImportFrom
            ):
                if (
                    searched
                    and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and wanted(node)
                ):
                    found = (node, path)
                    break
                if depth < 2 and isinstance(node, ast.ImportFrom) and node.level:
                    source = self._module_file(node.module or "", node.level, path)
                    if source is not None:
                        pending.append((source, depth + 1))
        self._near[file] = found
        return found

    # -- what one call runs ---------------------------------------------------------------------

    def _targets(
        self, module: Module, call: ast.Call
    ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path]]:
        func = call.func
        special = self._self_or_super(module, func)
        if special is not None:
            return special
        try:
            value = self.engine.value_of(module, func)
        except RecursionError:
            return []
        if isinstance(value, BoundMethod):
            value = value.function
        if isinstance(value, Function):
            node = value.node
            return [] if isinstance(node, ast.Lambda) else [(node, value.path)]
        if isinstance(value, Class):
            return self._constructor(value.node, value.path)
        if isinstance(value, Instance):
            return self._method(value.cls.node, value.cls.path, "__call__")
        if isinstance(value, External):
            return self._installed_targets(value.name)
        if isinstance(value, Unknown) and not isinstance(value, Foreign):
            return self._written(module, func)
        return []

    def _self_or_super(
        self, module: Module, func: ast.expr
    ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path]] | None:
        """`self.f(...)` and `super().f(...)` in a method: `f` of the class (or its bases)."""
        if not isinstance(func, ast.Attribute):
            return None
        base = func.value
        is_super = (
            isinstance(base, ast.Call)
            and isinstance(base.func, ast.Name)
            and base.func.id == "super"
        )
        if not (is_super or (isinstance(base, ast.Name) and base.id == "self")):
            return None
        current = module.parents.get(func)
        while current is not None and not isinstance(current, ast.ClassDef):
            current = module.parents.get(current)
        if current is None:
            return None
        if is_super:
            found = []
            for klass, path in self._bases(current, module.path):
                found.extend(self._method(klass, path, func.attr))
                if found:
                    break
            return found
        return self._method(current, module.path, func.attr)

    def _constructor(
        self, node: ast.ClassDef, path: Path
    ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path]]:
        return [
            *self._method(node, path, "__init__"),
            *self._method(node, path, "__post_init__"),
        ]

    def _method(
        self, node: ast.ClassDef, path: Path, name: str
    ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path]]:
        """`name` defined in the class `node`, else in the first of its bases defining it."""
        chain = [(node, path), *self._bases(node, path)]
        for klass, where in chain:
            for statement in klass.body:
                if (
                    isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and statement.name == name
                ):
                    return [(statement, where)]
        return []

    def _bases(self, node: ast.ClassDef, path: Path) -> list[tuple[ast.ClassDef, Path]]:
        """The class's bases, theirs after them (depth first, at most 16), that are
        classes the engine or the installed modules show."""
        found: list[tuple[ast.ClassDef, Path]] = []
        pending = [(node, path)]
        while pending and len(found) < 16:
            klass, where = pending.pop(0)
            module = self.engine.project.module(where)
            if not isinstance(module, Module):
                continue
            for base in klass.bases:
                if isinstance(base, ast.Subscript):  # `Base[T]`
                    base = base.value
                try:
                    value = self.engine.value_of(module, base)
                except RecursionError:
                    continue
                pair: tuple[ast.ClassDef, Path] | None = None
                if isinstance(value, Class):
                    pair = (value.node, value.path)
                elif isinstance(value, External):
                    pair = self._installed_class(value.name)
                elif isinstance(value, Unknown) and not isinstance(value, Foreign):
                    written = self._written_definition(module, base)
                    if written is not None and isinstance(written[0], ast.ClassDef):
                        pair = (written[0], written[1])
                if pair is not None and not _never_entered(pair[1]):
                    found.append(pair)
                    pending.append(pair)
        return found

    # -- installed modules --------------------------------------------------------------------

    def _installed_targets(
        self, name: str
    ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path]]:
        found = self._installed_definition(name)
        if found is None:
            return []
        node, path = found
        if isinstance(node, ast.ClassDef):
            return self._constructor(node, path)
        return [(node, path)]

    def _installed_class(self, name: str) -> tuple[ast.ClassDef, Path] | None:
        found = self._installed_definition(name)
        if found is not None and isinstance(found[0], ast.ClassDef):
            return found[0], found[1]
        return None

    def _installed_definition(self, name: str) -> tuple[_Def, Path] | None:
        """The `def` or `class` the qualified `name` (`pkg.mod.f`, `pkg.mod.C.f`) denotes in
        the installed modules, re-exports followed."""
        parts = name.split(".")
        if parts[0] in _NEVER_ENTERED:
            return None
        for cut in range(len(parts) - 1, 0, -1):
            path = self._installed_module(".".join(parts[:cut]))
            if path is not None:
                return self._defined_in(path, parts[cut:], 0)
        return None

    def _installed_module(self, dotted: str) -> Path | None:
        """The source file of the installed module `dotted`, found as the import system
        finds it, without importing anything (not even its packages)."""
        if dotted in self._installed:
            return self._installed[dotted]
        found: Path | None = None
        locations: list[str] | None = None
        spec = None
        parts = dotted.split(".")
        for index in range(len(parts)):
            try:
                spec = PathFinder.find_spec(".".join(parts[: index + 1]), locations)
            except (ImportError, ValueError, OSError, KeyError):
                # KeyError: a namespace package below a package not imported (the import
                # system asks sys.modules for its parent's path): not followed
                spec = None
            if spec is None:
                break
            locations = (
                list(spec.submodule_search_locations)
                if spec.submodule_search_locations is not None
                else None
            )
            if index < len(parts) - 1 and locations is None:
                spec = None
                break
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            found = Path(spec.origin)
        self._installed[dotted] = found
        return found

    def _defined_in(
        self, path: Path, names: list[str], depth: int
    ) -> tuple[_Def, Path] | None:
        """`names[0]` bound at the top of the module at `path` (a `def`, a `class`, an
        import), then the rest of `names` as its attributes."""
        module = self.engine.project.module(path)
        if not isinstance(module, Module) or depth > 4 or not names:
            return None
        return self._bound_in(module, module.tree.body, names, depth)

    def _bound_in(
        self, module: Module, body: list[ast.stmt], names: list[str], depth: int
    ) -> tuple[_Def, Path] | None:
        first, rest = names[0], names[1:]
        for statement in reversed(body):  # the last binding at the top
            if (
                isinstance(
                    statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                )
                and statement.name == first
            ):
                if not rest:
                    return statement, module.path
                if isinstance(statement, ast.ClassDef) and len(rest) == 1:
                    found = self._method(statement, module.path, rest[0])
                    return found[0] if found else None
                return None
            if isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    if (alias.asname or alias.name) != first:
                        continue
                    dotted = statement.module or ""
                    as_module = self._module_file(
                        f"{dotted}.{alias.name}" if dotted else alias.name,
                        statement.level,
                        module.path,
                    )
                    if as_module is not None:  # `from pkg import submodule`
                        return self._defined_in(as_module, rest, depth + 1)
                    source = self._module_file(dotted, statement.level, module.path)
                    if source is None:
                        return None
                    return self._defined_in(source, [alias.name, *rest], depth + 1)
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    bound = alias.asname or alias.name.partition(".")[0]
                    if bound != first:
                        continue
                    dotted = alias.name if alias.asname else bound
                    parts = rest
                    if not alias.asname:  # `import a.b` binds `a`: `a.b.f` is in a.b
                        extra = alias.name.split(".")[1:]
                        if rest[: len(extra)] == extra:
                            dotted, parts = alias.name, rest[len(extra) :]
                    source = self._module_file(dotted, 0, module.path)
                    if source is None:
                        return None
                    return self._defined_in(source, parts, depth + 1)
        return None

    def _module_file(self, dotted: str, level: int, importer: Path) -> Path | None:
        """The file of the module `dotted` (`level` leading dots) imported in `importer`: of
        the tree, else installed."""
        if not dotted and not level:
            return None
        found = self.engine.project.find(dotted, level, importer)
        if not isinstance(found, Unknown):
            if found.path is not None:
                return found.path
            return None
        if level or dotted.partition(".")[0] in _NEVER_ENTERED:
            return None
        return self._installed_module(dotted)

    def _written(
        self, module: Module, func: ast.expr
    ) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Path]]:
        """What `f` or `a.b.f` names by the imports and definitions as written (where the
        engine gives no value: a class or function behind a decorator it does not see
        through, which in the end runs its body): the enclosing functions' own imports and
        definitions, then the module's."""
        found = self._written_definition(module, func)
        if found is None:
            return []
        definition, path = found
        if isinstance(definition, ast.ClassDef):
            return self._constructor(definition, path)
        return [(definition, path)]

    def _written_definition(
        self, module: Module, func: ast.expr
    ) -> tuple[_Def, Path] | None:
        names: list[str] = []
        node: ast.expr = func
        while isinstance(node, ast.Attribute):
            names.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        names.insert(0, node.id)
        found = None
        scope = module.parents.get(func)
        while scope is not None and found is None:
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body: list[ast.stmt] = [
                    s
                    for s in ast.walk(scope)
                    if isinstance(s, (ast.Import, ast.ImportFrom))
                    or (
                        isinstance(
                            s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                        )
                        and s is not scope
                    )
                ]
                found = self._bound_in(module, body, names, 0)
            scope = module.parents.get(scope)
        if found is None:
            found = self._bound_in(module, module.tree.body, names, 0)
        return found


def _installed(path: Path) -> bool:
    return any(part in _SITE_DIRS for part in path.parts)


def _never_entered(path: Path) -> bool:
    """Whether `path` is in an installed JAX (or standard library) package."""
    parts = path.parts
    for index, part in enumerate(parts[:-1]):
        if part in _SITE_DIRS:
            top = parts[index + 1].removesuffix(".py")
            return top in _NEVER_ENTERED
    return False


def _short_path(path: Path) -> str:
    parts = path.parts
    for index, part in enumerate(parts[:-1]):
        if part in _SITE_DIRS:
            return "/".join(parts[index + 1 :])
    return path.name
