"""The project index: what a module imports from other modules of the same tree.

`ProjectIndex` (one per process, reused across files) finds the file an import names and keeps
the `ModuleAnalysis` of each file it parsed, in a small cache keyed by path and content. It is
lazy: nothing is read until a value question reaches a name bound by an import. It never runs
or imports the code it reads.

`external(analysis, expr)` answers "what, defined in another module of the tree, does this Name
or attribute chain denote?": an `External` (that module's analysis and the defining node), a
`ModuleRef` (a module itself), `Unknown(why)`, or None when `expr` is not reached through an
import at all. A module-level name counts only when it is bound exactly once in its module, by a
statement of the module's top-level block (not inside an `if`, `try`, loop or function) in a
module without `from x import *`; re-exports (`from .meshes import MESH` in `__init__.py`) are
followed. Anything else stays Unknown: a file that is missing, outside the tree, too large or
does not parse, an import cycle, a chain longer than `_MAX_MODULES`.

Where imports are looked for, as Python does for code run from the tree:
- relative (`from .m import X`, `from .. import m`): from the importer's package (its directory),
  one directory up per extra dot;
- absolute (`import a.b`, `from a.b import X`): the directory above the importer's top-most
  package (walking up while `__init__.py` exists), then each root and `<root>/src`. Packages
  without `__init__.py` (namespace packages) are directories there.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import Assignment, GlobalScope, ImportAssignment

from jaxfix.analysis.values import Unknown
from jaxfix.nesting import too_deep

if TYPE_CHECKING:
    from jaxfix.analysis.module import ModuleAnalysis

_MAX_MODULES = 8  # modules one answer may pass through (import chains, re-exports, calls)
_CACHED_MODULES = 32
_CACHED_SOURCE_BYTES = 2 * 1024 * 1024
# As jaxfix/engine.py predicts before parsing: up to ~800 bytes of memory per byte of source.
_BYTES_PER_SOURCE_BYTE = 800


@dataclass(frozen=True)
class ModuleRef:
    """A module of the tree: its file (`__init__.py` for a regular package), or only its
    directory for a namespace package."""

    path: Path | None
    directory: Path | None  # set for packages: where its submodules are

    @property
    def describe(self) -> str:
        return str(self.path or self.directory)


@dataclass(frozen=True)
class External:
    """Something defined at module level in another module of the tree: that module's analysis
    and the defining node: a `FunctionDef`, a `ClassDef`, or the expression assigned to the name
    (`MESH = AbstractMesh(...)` gives the `AbstractMesh(...)` call; for chained assignment and
    unpacking, `A = B = 8` or `A, B = 8, 4`, the bound Name, which that module evaluates)."""

    analysis: ModuleAnalysis
    node: cst.CSTNode
    name: str

    @property
    def path(self) -> Path:
        assert self.analysis.path is not None  # every analysis the index makes has its path
        return self.analysis.path


Resolved = External | ModuleRef | Unknown


@dataclass(frozen=True)
class _Cached:
    stat: tuple[int, int]  # modification time (ns) and size when last read
    digest: bytes
    result: ModuleAnalysis | Unknown


class ProjectIndex:
    """Finds and parses the modules of the tree that imports name, on demand.

    `roots`: the directories the run was given (absolute imports are also looked for in each
    and its `src/`). `max_source_bytes`: larger modules are not parsed (Unknown), as the
    engine's memory bound refuses such files.
    """

    def __init__(self, roots: tuple[Path, ...] = (), *, max_source_bytes: int | None = None) -> None:
        self.roots = tuple(dict.fromkeys(r.resolve() for r in roots))
        self.max_source_bytes = max_source_bytes if max_source_bytes is not None else 2048 * 1024 * 1024 // _BYTES_PER_SOURCE_BYTE
        self._cache: OrderedDict[tuple[Path, tuple[int, ...] | None], _Cached] = OrderedDict()
        self._active: list[tuple[Path, str]] = []  # (module, name) answers being worked out

    # -- finding files ----------------------------------------------------------------------

    def find(self, name: str, level: int, importer: Path) -> ModuleRef | Unknown:
        """The module `name` (dotted, maybe empty) imported with `level` leading dots from the
        module in file `importer`."""
        parts = [p for p in name.split(".") if p]
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            if not all(self._is_package(d) for d in (importer.parent, *importer.parent.parents)[:level]):
                return Unknown(f"`{'.' * level}{name}` goes above the top-level package")
            found = _module_in(base, parts)
            return found or Unknown(f"no module `{'.' * level}{name}` in {base}")
        for directory in self._search_dirs(importer):
            found = _module_in(directory, parts)
            if found is not None:
                return found
        return Unknown(f"`{name}` is not a module of this tree")

    def _is_package(self, directory: Path) -> bool:
        """A regular package, or a namespace package: a directory below a root."""
        return (directory / "__init__.py").is_file() or any(root in directory.parents for root in self.roots)

    def _search_dirs(self, importer: Path) -> Iterator[Path]:
        top = importer.parent
        while (top / "__init__.py").is_file():
            top = top.parent
        seen = set()
        for directory in (top, *(d for root in self.roots for d in (root, root / "src"))):
            if directory not in seen:
                seen.add(directory)
                yield directory

    # -- reading modules --------------------------------------------------------------------

    def analysis(self, path: Path, jax_version: tuple[int, ...] | None) -> ModuleAnalysis | Unknown:
        """The analysis of the module in `path` (cached by content), or why there is none."""
        try:
            stat = path.stat()
            if stat.st_size > self.max_source_bytes:
                return Unknown(f"{path.name} is too large to analyse")
            key = (path, jax_version)
            cached = self._cache.get(key)
            if cached is not None and cached.stat == (stat.st_mtime_ns, stat.st_size):
                self._cache.move_to_end(key)
                return cached.result
            source = path.read_bytes()
        except OSError as error:
            return Unknown(f"{path.name} cannot be read ({error.strerror})")
        digest = hashlib.blake2b(source, digest_size=16).digest()
        if cached is not None and cached.digest == digest:
            result = cached.result
        else:
            result = self._parse(path, source, jax_version)
        self._cache[key] = _Cached((stat.st_mtime_ns, stat.st_size), digest, result)
        self._cache.move_to_end(key)
        while len(self._cache) > _CACHED_MODULES or (len(self._cache) > 1 and sum(c.stat[1] for c in self._cache.values()) > _CACHED_SOURCE_BYTES):
            self._cache.popitem(last=False)
        return result

    def _parse(self, path: Path, source: bytes, jax_version: tuple[int, ...] | None) -> ModuleAnalysis | Unknown:
        from jaxfix.analysis.module import ModuleAnalysis  # noqa: I001 - module.py imports this module
        from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper

        if too_deep(source) is not None:
            return Unknown(f"{path.name} is nested too deeply to analyse")
        try:
            module = cst.parse_module(source)
        except Exception:  # noqa: BLE001 - any module that does not parse is simply unknown
            return Unknown(f"{path.name} does not parse")
        return ModuleAnalysis(ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), jax_version, path=path, project=self)

    # -- cycles ---------------------------------------------------------------------------------

    @contextmanager
    def entering(self, path: Path, name: str) -> Iterator[bool]:
        """Whether the answer about `name` in `path` may be worked out now: False inside its own
        working-out (an import cycle) or past `_MAX_MODULES` modules deep."""
        key = (path, name)
        if key in self._active or len(self._active) >= _MAX_MODULES:
            yield False
            return
        self._active.append(key)
        try:
            yield True
        finally:
            self._active.pop()


def _module_in(directory: Path, parts: list[str]) -> ModuleRef | None:
    """The module `parts` (a dotted name split) names under `directory`; `[]` names the
    directory itself, as a package."""
    current = directory
    for part in parts[:-1]:
        current = current / part
        if not current.is_dir():
            return None
    if not parts:
        return _package(directory)
    last = current / parts[-1]
    if last.is_dir():
        return _package(last)
    module = last.with_name(parts[-1] + ".py")
    return ModuleRef(module, None) if module.is_file() else None


def _package(directory: Path) -> ModuleRef:
    init = directory / "__init__.py"
    return ModuleRef(init if init.is_file() else None, directory)


# -- what a name means in another module ----------------------------------------------------------


def external(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Resolved | None:
    """What `expr` (a Name or a chain of attributes on one) denotes in another module of the
    tree; None when it does not start with a name bound by an import (or the analysis has no
    project index)."""
    project, importer = analysis.project, analysis.path
    if project is None or importer is None:
        return None
    attributes: list[str] = []
    root = expr
    while isinstance(root, cst.Attribute):
        attributes.append(root.attr.value)
        root = root.value
    if not isinstance(root, cst.Name):
        return None
    assignments = analysis.bindings.all(root.value, root)
    if not assignments or not all(isinstance(a, ImportAssignment) for a in assignments):
        return None
    current = _imported(analysis, root.value, assignments)
    for attribute in reversed(attributes):
        if not isinstance(current, ModuleRef):
            return current if isinstance(current, Unknown) else Unknown(f"`{attribute}` of `{current.name}`, not of a module")
        current = _member(analysis, current, attribute)
    return current


def _imported(analysis: ModuleAnalysis, bound: str, assignments: list[Assignment]) -> Resolved:
    """Where the imports binding `bound` lead (several only as `import a.b` and `import a.c`,
    which all bind package `a`)."""
    project, importer = analysis.project, analysis.path
    assert project is not None and importer is not None
    targets = {_import_target(a, bound) for a in assignments}
    if len(targets) != 1:
        return Unknown(f"`{bound}` is imported from different places")
    (target,) = targets
    if target is None:
        return Unknown(f"an import of `{bound}` jaxfix does not follow")
    module_name, level, member = target
    module = project.find(module_name, level, importer)
    if isinstance(module, Unknown) or member is None:
        return module
    return _member(analysis, module, member)


def _import_target(assignment: Assignment, bound: str) -> tuple[str, int, str | None] | None:
    """(module, level, member or None) that the import binding `bound` names: `import a.b`
    binds `a` to module `a`, `import a.b as m` binds `m` to `a.b`, `from .a import b as m`
    binds `m` to member `b` of `.a`."""
    statement = assignment.node
    if isinstance(statement, cst.Import):
        for alias in statement.names:
            full = get_full_name_for_node(alias.name) or ""
            if alias.asname is None and full.split(".")[0] == bound:
                return bound, 0, None
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name) and alias.asname.name.value == bound:
                return full, 0, None
        return None
    if isinstance(statement, cst.ImportFrom) and not isinstance(statement.names, cst.ImportStar):
        source = get_full_name_for_node(statement.module) or "" if statement.module is not None else ""
        for alias in statement.names:
            local = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(local, cst.Name) and local.value == bound and isinstance(alias.name, cst.Name):
                return source, len(statement.relative), alias.name.value
    return None


def _member(asker: ModuleAnalysis, module: ModuleRef, name: str) -> Resolved:
    """`module.name`: what the module binds to `name` at its top level, else its submodule."""
    project = asker.project
    assert project is not None
    if module.path is not None:
        other = project.analysis(module.path, asker.jax_version)
        bound = _module_level(other, name) if not isinstance(other, Unknown) else other
        asker.depends_on(module.path, other)
        if bound is not None:
            return bound
    if module.directory is not None:
        submodule = _module_in(module.directory, [name])
        if submodule is not None:
            return submodule
    return Unknown(f"`{name}` is not defined in {module.describe}")


def _module_level(module: ModuleAnalysis, name: str) -> Resolved | None:
    """What `module` binds to `name` at its top level; None when it does not bind it."""
    path = module.path
    assert path is not None and module.project is not None
    if module.has_star_import:
        return Unknown(f"{path.name} has `from ... import *`")
    scope = module.scopes.get(module.wrapper.module)
    assignments = list(scope.assignments[name]) if isinstance(scope, GlobalScope) and name in scope.assignments else []
    if not assignments:
        return None
    if len(assignments) != 1 or not isinstance(assignments[0], Assignment):
        return Unknown(f"`{name}` is bound more than once in {path.name}")
    assignment = assignments[0]
    node = assignment.node
    if isinstance(assignment, ImportAssignment):
        if not _top_level(module, node):
            return Unknown(f"`{name}` is imported conditionally in {path.name}")
        with module.project.entering(path, name) as allowed:
            if not allowed:
                return Unknown(f"`{name}` is part of an import cycle (or a chain too long) through {path.name}")
            return _imported(module, name, [assignment])
    statement = module.parents.get(node)
    while isinstance(statement, (cst.Element, cst.StarredElement, cst.Tuple, cst.List, cst.AssignTarget)):
        statement = module.parents.get(statement)  # out of unpacking targets, to the statement
    defining = node if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else statement
    if defining is None or not _top_level(module, defining):
        return Unknown(f"`{name}` is defined conditionally (or inside a block) in {path.name}")
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return External(module, node, name)
    simple = isinstance(module.parents.get(node), (cst.AssignTarget, cst.AnnAssign))
    value = statement.value if isinstance(statement, (cst.Assign, cst.AnnAssign)) else None
    if simple and value is not None and not (isinstance(statement, cst.Assign) and len(statement.targets) > 1):
        return External(module, value, name)
    if isinstance(statement, cst.Assign) and isinstance(node, cst.Name):
        return External(module, node, name)  # `A = B = 8`, `A, B = 8, 4`: that module evaluates the name
    return Unknown(f"`{name}` is bound by a statement jaxfix does not follow in {path.name}")


def _top_level(module: ModuleAnalysis, node: cst.CSTNode) -> bool:
    """Whether `node` is, or is a small statement of a line of, the module's top-level block."""
    parent = module.parents.get(node)
    if isinstance(parent, cst.SimpleStatementLine):
        parent = module.parents.get(parent)
    return parent is module.wrapper.module
