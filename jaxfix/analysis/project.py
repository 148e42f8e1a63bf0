"""The project index: what a module imports from other modules of the same tree.

`ProjectIndex` (one per process, reused across files) finds the file an import names and keeps,
per file and content (re-read when its size or modification time changes), a summary of its
top-level bindings from `ast` and, once a value or definition there is needed, its
`ModuleAnalysis` (LibCST; only for modules up to `_ANALYSED_SOURCE_BYTES`). It is lazy: nothing
is read until a question reaches a name bound by an import. It never runs or imports the code.

`external(analysis, expr)` answers "what, defined in another module of the tree, does this Name
or attribute chain denote?": a `Definition` (`materialize` gives its `External`: that module's
analysis and the defining node), a `ModuleRef` (a module itself), `Unknown(why)`, or None when
`expr` is not reached through an import at all. A module-level name counts only when it is
bound exactly once in its module, by a statement of the module's top-level block (not inside an
`if`, `try`, loop or function, not also by `global` in a function), in a module without
`from x import *`; re-exports (`from .meshes import MESH` in `__init__.py`) are followed.
Anything else stays Unknown: a file that is missing, outside the tree, too large or does not
parse, an import cycle, a chain longer than `_MAX_MODULES`.

Where imports are looked for, as Python does for code run from the tree:
- relative (`from .m import X`, `from .. import m`): from the importer's package (its directory),
  one directory up per extra dot;
- absolute (`import a.b`, `from a.b import X`): the directory above the importer's top-most
  package (walking up while `__init__.py` exists), then each root and `<root>/src`. Packages
  without `__init__.py` (namespace packages) are directories there.
"""

from __future__ import annotations

import ast
import enum
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Protocol, TypeVar, cast

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import Assignment, ImportAssignment, MetadataWrapper

from jaxfix.analysis.bindings import Bindings
from jaxfix.analysis.values import Unknown
from jaxfix.file_io import ReadError, read_regular
from jaxfix.nesting import too_deep
from jaxfix.paths import path_state


class Analysed(Protocol):
    """What the index needs of a module's analysis, made by the factory it is given
    (`jaxfix.analysis.module.project_index` gives `ModuleAnalysis`): its tree and its file."""

    @property
    def wrapper(self) -> MetadataWrapper: ...

    @property
    def path(self) -> Path | None: ...


class Recorded(Protocol):
    """An analysis whose answers used other files: which, and the paths its imports were looked for at."""

    @property
    def dependencies(self) -> frozenset[Path]: ...

    @property
    def layout(self) -> Layout: ...


T = TypeVar("T")
A = TypeVar("A", bound=Analysed)
A_co = TypeVar("A_co", bound=Analysed, covariant=True)
Layout = dict[
    Path, str
]  # a path an import was looked for at -> what it was (`path_state`)
_MAX_MODULES = (
    8  # modules one answer may pass through (import chains, re-exports, calls)
)
_CACHED_MODULES = 256  # `ast` summaries kept (small)
_PARSED_SOURCE_BYTES = (
    2 * 1024 * 1024
)  # LibCST analyses kept, by the size of their source
# Values and functions are only followed into modules this small: their scopes take LibCST
# seconds in a module of thousands of lines (jax/_src/pjit.py), and the meshes and constants a
# project shares live in small modules, test helpers in larger ones (JAX's jax/_src/test_util.py,
# 84 KB, has `with_explicit_mesh`). Names are still followed through larger ones (`ast`).
_ANALYSED_SOURCE_BYTES = 96 * 1024
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
class External(Generic[A_co]):
    """Something defined at module level in another module of the tree: that module's analysis
    and the defining node: a `FunctionDef`, a `ClassDef`, or the expression assigned to the name
    (`MESH = AbstractMesh(...)` gives the `AbstractMesh(...)` call; for chained assignment and
    unpacking, `A = B = 8` or `A, B = 8, 4`, the bound Name, which that module evaluates)."""

    analysis: A_co
    node: cst.CSTNode
    name: str

    @property
    def path(self) -> Path:
        assert (
            self.analysis.path is not None
        )  # every analysis the index makes has its path
        return self.analysis.path


# What an import names: (module, level, member or None); the screen's imports say it too.
ImportTarget = tuple[str, int, str | None]


class Asker(Protocol):
    """Who follows an import (a `ModuleAnalysis`, or the screen for a file): the index, and
    where to record the paths looked at and the files read."""

    @property
    def project(self) -> ProjectIndex[Analysed] | None: ...

    @property
    def layout(self) -> Layout: ...

    def depends_on(self, path: Path) -> None: ...


class _IndexedFile(Generic[A_co]):
    """One file as last read: its `ast` summary, and its LibCST analysis once one is needed."""

    def __init__(
        self,
        stat: tuple[int, int],
        digest: bytes,
        source: bytes,
        summary: _Summary | Unknown,
    ) -> None:
        self.stat = stat  # modification time (ns) and size when read
        self.digest = digest
        self.source = source
        self.summary = summary
        self.analyses: dict[
            tuple[int, ...] | None, A_co | Unknown
        ] = {}  # by JAX version
        self.derived: dict[
            Callable[[Path, bytes], object], object
        ] = {}  # see `ProjectIndex.derived`


class ProjectIndex(Generic[A_co]):
    """Finds and parses the modules of the tree that imports name, on demand.

    `roots`: the directories the run was given (absolute imports are also looked for in each
    and its `src/`). `analyse`: makes a parsed module's analysis (its wrapper, the JAX version,
    its file, this index). `max_source_bytes`: larger modules are not parsed (Unknown), as the
    engine's memory bound refuses such files.
    """

    def __init__(
        self,
        roots: tuple[Path, ...],
        analyse: Callable[
            [MetadataWrapper, tuple[int, ...] | None, Path, ProjectIndex[A_co]], A_co
        ],
        *,
        max_source_bytes: int | None = None,
    ) -> None:
        self._analyse = analyse
        self.roots = tuple(dict.fromkeys(r.resolve() for r in roots))
        self.max_source_bytes = (
            max_source_bytes
            if max_source_bytes is not None
            else 2048 * 1024 * 1024 // _BYTES_PER_SOURCE_BYTE
        )
        self._files: OrderedDict[Path, _IndexedFile[A_co]] = OrderedDict()
        self._parsed: OrderedDict[Path, int] = (
            OrderedDict()
        )  # files with LibCST analyses: source bytes
        self._active: list[
            tuple[Path, str]
        ] = []  # (module, name) answers being worked out

    # -- finding files ----------------------------------------------------------------------

    def find(
        self, name: str, level: int, importer: Path, layout: Layout | None = None
    ) -> ModuleRef | Unknown:
        """The module `name` (dotted, maybe empty) imported with `level` leading dots from the
        module in file `importer`. `layout` receives what each path looked at was (see
        `path_state`): the answer holds while they stay so, as a new file may shadow the one found."""
        seen: Layout = layout if layout is not None else {}
        parts = [p for p in name.split(".") if p]
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            if not all(
                self._is_package(d, seen)
                for d in (importer.parent, *importer.parent.parents)[:level]
            ):
                return Unknown(
                    f"`{'.' * level}{name}` goes above the top-level package"
                )
            found = _module_in(base, parts, seen)
            return found or Unknown(f"no module `{'.' * level}{name}` in {base}")
        for directory in self._search_dirs(importer, seen):
            found = _module_in(directory, parts, seen)
            if found is not None:
                return found
        return Unknown(f"`{name}` is not a module of this tree")

    def _is_package(self, directory: Path, layout: Layout) -> bool:
        """A regular package, or a namespace package: a directory below a root."""
        return _is(directory / "__init__.py", "file", layout) or any(
            root in directory.parents for root in self.roots
        )

    def _search_dirs(self, importer: Path, layout: Layout) -> Iterator[Path]:
        top = importer.parent
        while _is(top / "__init__.py", "file", layout):
            top = top.parent
        seen = set()
        for directory in (
            top,
            *(d for root in self.roots for d in (root, root / "src")),
        ):
            if directory not in seen:
                seen.add(directory)
                yield directory

    # -- reading modules --------------------------------------------------------------------

    def summary(self, path: Path) -> _Summary | Unknown:
        """The module's top-level bindings (from `ast`: cheap), or why there are none."""
        found = self._read(path)
        return found if isinstance(found, Unknown) else found.summary

    def derived(self, path: Path, make: Callable[[Path, bytes], T]) -> T | Unknown:
        """What `make` computes from the module's path and source, once per content (the `ast`
        screen's facts of a module, jaxfix/analysis/imported_contexts.py)."""
        found = self._read(path)
        if isinstance(found, Unknown):
            return found
        if make not in found.derived:
            found.derived[make] = make(path, found.source)
        return cast(T, found.derived[make])

    def analysis(
        self, path: Path, jax_version: tuple[int, ...] | None
    ) -> A_co | Unknown:
        """The LibCST analysis of the module in `path`, or why there is none."""
        found = self._read(path)
        if isinstance(found, Unknown):
            return found
        if isinstance(found.summary, Unknown):
            return found.summary
        if len(found.source) > _ANALYSED_SOURCE_BYTES:
            return Unknown(
                f"{path.name} is too large to follow into (over {_ANALYSED_SOURCE_BYTES // 1024} KB)"
            )
        if jax_version not in found.analyses:
            found.analyses[jax_version] = self._parse(path, found.source, jax_version)
            self._parsed[path] = len(found.source)
            while (
                len(self._parsed) > 1
                and sum(self._parsed.values()) > _PARSED_SOURCE_BYTES
            ):
                oldest = next(iter(self._parsed))
                del self._parsed[oldest]
                if oldest in self._files:
                    self._files[oldest].analyses.clear()
        return found.analyses[jax_version]

    def _read(self, path: Path) -> _IndexedFile[A_co] | Unknown:
        """The module in `path` as it is now: re-read when its size or modification time changed."""
        try:
            stat = path.stat()
            if stat.st_size > self.max_source_bytes:
                return Unknown(f"{path.name} is too large to analyse")
            cached = self._files.get(path)
            if cached is not None and cached.stat == (stat.st_mtime_ns, stat.st_size):
                self._files.move_to_end(path)
                return cached
            source = read_regular(
                path, self.max_source_bytes
            )  # a module a pull request names may be a FIFO
        except OSError as error:
            return Unknown(f"{path.name} cannot be read ({error.strerror})")
        except ReadError as error:
            return Unknown(f"{path.name} cannot be read ({error})")
        digest = hashlib.blake2b(source, digest_size=16).digest()
        if cached is not None and cached.digest == digest:
            cached.stat = (stat.st_mtime_ns, stat.st_size)
            self._files.move_to_end(path)
            return cached
        self._parsed.pop(path, None)
        found: _IndexedFile[A_co] = _IndexedFile(
            (stat.st_mtime_ns, stat.st_size), digest, source, _summarize(path, source)
        )
        self._files[path] = found
        while len(self._files) > _CACHED_MODULES:
            oldest, _ = self._files.popitem(last=False)
            self._parsed.pop(oldest, None)
        return found

    def _parse(
        self, path: Path, source: bytes, jax_version: tuple[int, ...] | None
    ) -> A_co | Unknown:
        from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper

        if too_deep(source) is not None:
            return Unknown(f"{path.name} is nested too deeply to analyse")
        try:
            module = cst.parse_module(source)
        except Exception:  # noqa: BLE001 - any module that does not parse is simply unknown
            return Unknown(f"{path.name} does not parse")
        return self._analyse(
            ModuleLevelBatchWrapper(module, unsafe_skip_copy=True),
            jax_version,
            path,
            self,
        )

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


def _summarize(path: Path, source: bytes) -> _Summary | Unknown:
    try:  # `ast` refuses code nested too deeply with an exception (LibCST would crash: see _parse)
        return _Summary(ast.parse(source))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return Unknown(f"{path.name} does not parse")


def _module_in(directory: Path, parts: list[str], layout: Layout) -> ModuleRef | None:
    """The module `parts` (a dotted name split) names under `directory`; `[]` names the
    directory itself, as a package."""
    current = directory
    for part in parts[:-1]:
        current = current / part
        if not _is(current, "directory", layout):
            return None
    if not parts:
        return _package(directory, layout)
    last = current / parts[-1]
    if _is(last, "directory", layout):
        return _package(last, layout)
    module = last.with_name(parts[-1] + ".py")
    return ModuleRef(module, None) if _is(module, "file", layout) else None


def _package(directory: Path, layout: Layout) -> ModuleRef:
    init = directory / "__init__.py"
    return ModuleRef(init if _is(init, "file", layout) else None, directory)


def _is(path: Path, state: str, layout: Layout) -> bool:
    """Whether `path` is a `state` ('file' or 'directory'), recording what it is in `layout`."""
    found = layout.get(path)
    if found is None:
        found = layout[path] = path_state(path)
    return found == state


# -- what a name means in another module ----------------------------------------------------------


class Importer(Asker, Protocol):
    """A module's analysis following its own imports: also its file and its bindings."""

    @property
    def path(self) -> Path | None: ...

    @property
    def bindings(self) -> Bindings: ...


def external(analysis: Importer, expr: cst.BaseExpression) -> Resolved | None:
    """What `expr` (a Name or a chain of attributes on one) denotes in another module of the
    tree; None when it does not start with a name bound by an import (or the analysis has no
    project index). Only `ast` summaries of the modules on the way are read."""
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
    targets = {_import_target(a, root.value) for a in assignments}
    if len(targets) != 1:
        return Unknown(f"`{root.value}` is imported from different places")
    (target,) = targets
    if target is None:
        return Unknown(f"an import of `{root.value}` jaxfix does not follow")
    return follow_import(analysis, target, importer, tuple(reversed(attributes)))


def follow_import(
    asker: Asker, target: ImportTarget, importer: Path, attributes: tuple[str, ...] = ()
) -> Resolved:
    """What the import `target` of the module in `importer` binds, then `attributes` of it
    (`tu.with_mesh` after `import pkg.testing as tu`): only `ast` summaries are read; each file
    read and each place looked at is recorded with `asker`."""
    current = _follow(asker, target, importer)
    for attribute in attributes:
        if isinstance(current, Definition):
            return Unknown(f"`{attribute}` of `{current.name}`, not of a module")
        if isinstance(current, Unknown):
            return current
        current = _member(asker, current, attribute, set())
    return current


def _import_target(assignment: Assignment, bound: str) -> ImportTarget | None:
    """(module, level, member or None) that the import binding `bound` names: `import a.b`
    binds `a` to module `a`, `import a.b as m` binds `m` to `a.b`, `from .a import b as m`
    binds `m` to member `b` of `.a`."""
    statement = assignment.node
    if isinstance(statement, cst.Import):
        for alias in statement.names:
            full = get_full_name_for_node(alias.name) or ""
            if alias.asname is None and full.split(".")[0] == bound:
                return bound, 0, None
            if (
                alias.asname is not None
                and isinstance(alias.asname.name, cst.Name)
                and alias.asname.name.value == bound
            ):
                return full, 0, None
        return None
    if isinstance(statement, cst.ImportFrom) and not isinstance(
        statement.names, cst.ImportStar
    ):
        source = (
            get_full_name_for_node(statement.module) or ""
            if statement.module is not None
            else ""
        )
        for alias in statement.names:
            local = alias.asname.name if alias.asname is not None else alias.name
            if (
                isinstance(local, cst.Name)
                and local.value == bound
                and isinstance(alias.name, cst.Name)
            ):
                return source, len(statement.relative), alias.name.value
    return None


def _follow(
    asker: Asker,
    target: ImportTarget,
    importer: Path,
    seen: set[tuple[Path, str]] | None = None,
) -> Resolved:
    project = asker.project
    assert project is not None
    module_name, level, member = target
    module = project.find(module_name, level, importer, asker.layout)
    if isinstance(module, Unknown) or member is None:
        return module
    return _member(asker, module, member, seen if seen is not None else set())


def _member(
    asker: Asker, module: ModuleRef, name: str, seen: set[tuple[Path, str]]
) -> Resolved:
    """`module.name`: what the module binds to `name` at its top level, else its submodule;
    re-exports are followed (`seen`: the re-exports on the way, against cycles)."""
    project = asker.project
    assert project is not None
    if module.path is not None:
        summary = project.summary(module.path)
        asker.depends_on(module.path)
        if isinstance(summary, Unknown):
            return summary
        binding = summary.binding(name)
        if isinstance(binding, Unknown):
            return Unknown(f"{binding.why} in {module.path.name}")
        if binding is not None:
            if binding.kind is not _Kind.IMPORT:
                return Definition(module.path, name, binding)
            key = (module.path, name)
            if key in seen or len(seen) >= _MAX_MODULES:
                return Unknown(
                    f"`{name}` is part of an import cycle (or a chain too long) through {module.path.name}"
                )
            assert binding.target is not None
            return _follow(asker, binding.target, module.path, seen | {key})
    if module.directory is not None:
        submodule = _module_in(module.directory, [name], asker.layout)
        if submodule is not None:
            return submodule
    return Unknown(f"`{name}` is not defined in {module.describe}")


def materialize(
    project: ProjectIndex[A],
    jax_version: tuple[int, ...] | None,
    definition: Definition,
) -> External[A] | Unknown:
    """The LibCST view of `definition`: its module's analysis (for `jax_version`) and defining node."""
    other = project.analysis(definition.path, jax_version)
    if isinstance(other, Unknown):
        return other
    node = _defining_node(
        other.wrapper.module, definition.name, definition.binding.kind
    )
    if node is None:  # `ast` and LibCST disagree about the module: nothing is certain
        return Unknown(
            f"`{definition.name}` of {definition.path.name} is not where jaxfix expects it"
        )
    return External(other, node, definition.name)


def _defining_node(module: cst.Module, name: str, kind: _Kind) -> cst.CSTNode | None:
    """The one top-level statement the summary found binding `name`: the FunctionDef or
    ClassDef, the value of `name = value` / `name: T = value`, or for unpacking and chained
    assignment the bound Name itself."""
    for statement in module.body:
        if (
            isinstance(statement, (cst.FunctionDef, cst.ClassDef))
            and statement.name.value == name
            and kind in (_Kind.FUNCTION, _Kind.CLASS)
        ):
            return statement
        if (
            not isinstance(statement, cst.SimpleStatementLine)
            or kind is not _Kind.VALUE
        ):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value == name
            ):
                return small.value
            if isinstance(small, cst.Assign):
                if (
                    len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and small.targets[0].target.value == name
                ):
                    return small.value
                for target in small.targets:
                    found = _bound_name(target.target, name)
                    if found is not None:
                        return found
    return None


def _bound_name(target: cst.BaseExpression, name: str) -> cst.Name | None:
    if isinstance(target, cst.Name):
        return target if target.value == name else None
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            found = _bound_name(element.value, name)
            if found is not None:
                return found
    return None


# -- module summaries, from `ast` ---------------------------------------------------------------


@dataclass(frozen=True)
class InProject:
    """The module's place in the project: its file (for code from stdin without a name, `-` in
    the working directory) and the index that follows its imports; `used` gathers the other
    files the answers used, `layout` the paths imports were looked for at and what each was."""

    path: Path
    index: ProjectIndex[Analysed]
    used: set[Path] = field(default_factory=set)
    layout: dict[Path, str] = field(default_factory=dict)


class _Kind(enum.Enum):
    FUNCTION = "function"
    CLASS = "class"
    VALUE = "value"  # assigned once by `=` (maybe unpacking or chained) or `name: T = value`
    IMPORT = "import"


@dataclass(frozen=True)
class _Binding:
    kind: _Kind
    target: ImportTarget | None = None  # for an import: (module, level, member or None)
    plain: bool = True  # for a function: neither decorated nor async


@dataclass(frozen=True)
class Definition:
    """A name bound exactly once at the top level of another module of the tree, found from its
    `ast` summary (`materialize` gives its LibCST node)."""

    path: Path
    name: str
    binding: _Binding

    @property
    def is_function(self) -> bool:
        return self.binding.kind is _Kind.FUNCTION

    @property
    def is_plain_function(self) -> bool:
        return self.binding.kind is _Kind.FUNCTION and self.binding.plain

    @property
    def is_value(self) -> bool:
        return self.binding.kind is _Kind.VALUE


Resolved = Definition | ModuleRef | Unknown


class _Summary:
    """A module's top-level bindings: name -> the one binding, or Unknown(why) when it is bound
    more than once, conditionally, by `global` in a function, or may come from `import *`."""

    def __init__(self, tree: ast.Module) -> None:
        self.star = False
        found: dict[str, list[_Binding | Unknown]] = {}

        def bind(name: str, binding: _Binding | Unknown) -> None:
            found.setdefault(name, []).append(binding)

        for statement in tree.body:
            for name, binding in _top_level_bindings(statement):
                bind(name, binding)
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                for name in node.names:
                    bind(
                        name, Unknown(f"`{name}` is rebound by `global` in a function")
                    )
            elif isinstance(node, ast.ImportFrom) and any(
                alias.name == "*" for alias in node.names
            ):
                self.star = True
        self._bindings = {
            name: bindings[0]
            if len(bindings) == 1
            else Unknown(f"`{name}` is bound more than once")
            for name, bindings in found.items()
        }

    def binding(self, name: str) -> _Binding | Unknown | None:
        if self.star:
            return Unknown("`from ... import *` may bind any name")
        return self._bindings.get(name)


def _top_level_bindings(statement: ast.stmt) -> list[tuple[str, _Binding | Unknown]]:
    walrus = [
        (node.target.id, Unknown(f"`{node.target.id}` is bound by `:=`"))
        for node in _walk_outside_scopes(statement)
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name)
    ]
    bindings: list[tuple[str, _Binding | Unknown]] = [
        *_statement_bindings(statement),
        *walrus,
    ]
    return bindings


def _statement_bindings(statement: ast.stmt) -> list[tuple[str, _Binding | Unknown]]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        plain = not statement.decorator_list and isinstance(statement, ast.FunctionDef)
        return [(statement.name, _Binding(_Kind.FUNCTION, plain=plain))]
    if isinstance(statement, ast.ClassDef):
        return [(statement.name, _Binding(_Kind.CLASS))]
    if isinstance(statement, ast.Assign):
        return [
            (name, _Binding(_Kind.VALUE))
            for target in statement.targets
            for name in _stored_names(target)
        ]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        value: _Binding | Unknown = (
            _Binding(_Kind.VALUE)
            if statement.value is not None
            else Unknown("only annotated")
        )
        return [(statement.target.id, value)]
    if isinstance(statement, ast.Import):
        return [
            (
                alias.asname or alias.name.split(".")[0],
                _Binding(
                    _Kind.IMPORT,
                    (alias.name if alias.asname else alias.name.split(".")[0], 0, None),
                ),
            )
            for alias in statement.names
        ]
    if isinstance(statement, ast.ImportFrom):
        return [
            (
                alias.asname or alias.name,
                _Binding(
                    _Kind.IMPORT, (statement.module or "", statement.level, alias.name)
                ),
            )
            for alias in statement.names
            if alias.name != "*"
        ]
    # AugAssign, del, loops, `with`, `if`, `try`, `match`, walrus: bound, but not once and for all
    names = {
        name
        for node in _walk_outside_scopes(statement)
        for name in _stored_names_of(node)
    }
    return [
        (
            name,
            Unknown(
                f"`{name}` is bound conditionally or by a statement jaxfix does not follow"
            ),
        )
        for name in sorted(names)
    ]


def _stored_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _stored_names(element)]
    if isinstance(target, ast.Starred):
        return _stored_names(target.value)
    return []


def _stored_names_of(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [
            alias.asname or alias.name.split(".")[0]
            for alias in node.names
            if alias.name != "*"
        ]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    return []


def _walk_outside_scopes(node: ast.AST) -> list[ast.AST]:
    """`node` and what it contains, but not the bodies of functions, classes and lambdas (their
    names are their own; a comprehension's are too, but counting them only loses precision)."""
    found: list[ast.AST] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        if current is not node and isinstance(
            current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            continue
        stack.extend(ast.iter_child_nodes(current))
    return found
