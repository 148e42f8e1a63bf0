"""The modules of one project, read with `ast` only, and where an import leads.

A `Project` belongs to one run (never a process-wide cache keyed by module name: two projects'
`helper.py` never meet). It parses a module when a question first reaches it, by path, and keeps
it while its size and modification time stay the same. Where imports are looked for is Python's
rule for code run from the tree: relative imports from the importer's package, absolute ones
from the directory above the importer's top-most package, then each root and `<root>/src`. Nothing is imported or run.

What an answer depended on is recorded (`record`, one per module whose questions are being
answered, `begin`): every file parsed, every path an import was looked for at and what was there,
every search of the word index with the files it found; `files_seen` is what the word index read
of each of the run's files. A cached result keyed on these is never stale (jaxfix/cache/store.py).
"""

from __future__ import annotations

import ast
import gc
import hashlib
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Protocol

from jaxfix.analysis.ast_engine.fields import _OWN_FIELDS, own_fields
from jaxfix.analysis.ast_engine.flow import scope_names
from jaxfix.analysis.ast_engine.spelled_imports import spelled_imports
from jaxfix.analysis.ast_engine.values import Unknown
from jaxfix.sources.file_io import ReadError, open_regular, read_regular
from jaxfix.sources.grammar import Blanked, Region, needed_python, readable
from jaxfix.sources.paths import path_state
from jaxfix.sources.words import code_of, split_words, words_of

_MAX_SOURCE_BYTES = 4 * 1024 * 1024
# A function's callers are looked for in at most this many other modules (those whose words
# name it and its module); beyond, its parameters are Unknown: a library's own functions are
# called from everywhere, and parsing the whole tree for one answer costs what LibCST did.
MAX_CALLER_MODULES = 4
# A config module's object (`CONFIG = Config(...)`, a dict) is proven unchanged by the other
# modules in at most this many modules that name it and its module: read by many, changed by
# none (each is parsed once for the run's question, only when a rule needs the value).
MAX_READER_MODULES = 32
Signature = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
# Modules reached by imports and callers stay parsed between two modules' questions up to this
# many syntax nodes, the least recently used let go: a tree and its index take ~470 bytes a
# node (~120 MB here), whatever the source's size (typical code holds a node per 6-10 bytes;
# a notebook kept as text, its outputs in comments, one per 500: 2.3 MB of it are 4,467 nodes).
KEPT_NODES = 250_000
# Around a word: no character of an identifier (a byte above 127 is part of one in UTF-8)
_NOT_AFTER_WORD = rb"(?<![A-Za-z0-9_\x80-\xff])"
_NOT_BEFORE_WORD = rb"(?![A-Za-z0-9_\x80-\xff])"
# What a module not yet indexed is counted as: a node per this many bytes of its source.
_BYTES_PER_NODE = 8


class LoadSummaries(Protocol):
    """Where a run keeps, by the digest of a module's bytes, the names its code reads (every
    `ast.Name` and `ast.Attribute` loaded: its index's `loads_by_name`) and the attributes it
    stores (`Module.stored_attributes`), written when a process of the run parses it
    (jaxfix/check/summaries.py)."""

    def get(self, digest: bytes) -> tuple[frozenset[str], frozenset[str]] | None: ...

    def put(
        self, digest: bytes, reads: frozenset[str], stores: frozenset[str]
    ) -> None: ...


@dataclass(frozen=True)
class ModuleRef:
    """A module of the tree: its file, or only its directory for a namespace package."""

    path: Path | None
    directory: Path | None


@dataclass(frozen=True)
class Lookup:
    """A search of the run's word index: every file of the run holding all of `words`. A file
    that comes to hold them (a new caller) or stops holding them can change the answer."""

    words: tuple[str, ...]
    holders: frozenset[Path]


@dataclass
class Record:
    """What the answers about one module depended on, outside the module's own source."""

    files: set[Path] = field(default_factory=set)  # parsed or read: their bytes
    places: dict[Path, str] = field(default_factory=dict)  # path -> what was there
    lookups: set[Lookup] = field(default_factory=set)


# What `Module._index` records of a node, by its type.
_NAME, _CALL, _ATTRIBUTE, _EXPR, _CLASS, _GLOBAL, _NONLOCAL, _WALRUS, _BINOP, _WITH = (
    "name", "call", "attribute", "expr", "class", "global", "nonlocal", "walrus", "binop",
    "with",
)  # fmt: skip
_IMPORT = "import"
_KINDS: dict[type, str] = {
    ast.Name: _NAME,
    ast.Call: _CALL,
    ast.Attribute: _ATTRIBUTE,
    ast.Expr: _EXPR,
    ast.ClassDef: _CLASS,
    ast.Global: _GLOBAL,
    ast.Nonlocal: _NONLOCAL,
    ast.NamedExpr: _WALRUS,
    ast.BinOp: _BINOP,
    ast.With: _WITH,
    ast.AsyncWith: _WITH,
    ast.Import: _IMPORT,
    ast.ImportFrom: _IMPORT,
}


@dataclass
class _Index:
    """What one walk of a module finds (see `Module._index`)."""

    parents: dict[ast.AST, ast.AST]
    loads: dict[str, list[ast.AST]]
    declared: set[str]
    nonlocal_names: set[str]  # the names any function declares `nonlocal`
    classes: list[ast.ClassDef]
    stores: dict[str, list[ast.Attribute]]
    calls: list[ast.Call]
    bare_calls: list[ast.Call]
    walrus: bool  # any `:=`
    withs: list[ast.With | ast.AsyncWith]
    matmuls: list[ast.BinOp]  # `a @ b`
    imported: set[str]  # the names imports bind (`np` of `import numpy as np`)


class Module:
    """One parsed file: its tree, each node's parent, and lookups built on first use."""

    def __init__(
        self,
        path: Path,
        tree: ast.Module,
        source: bytes,
        blanked: tuple[Region, ...] = (),
    ) -> None:
        self.path = path
        self.tree = tree
        self.source = source
        self.blanked = blanked  # code in a newer grammar, not in `tree` (jaxfix/sources/grammar.py)
        self._scope_names: dict[ast.AST, tuple[frozenset[str], frozenset[str]]] = {}
        self._scopes: dict[ast.AST, ast.AST] = {}

    @cached_property
    def _index(self) -> _Index:
        """One walk for every per-module fact, each list in source order (a node before its
        children): each node's parent, every read of a name or attribute by its last name
        (where a function may be used), the names functions declare `global`, the classes,
        each `x.attr = ...` by attribute, the calls (what the rules look at) and the bare
        call statements (where a `set_mesh(...)` may be), the `with` statements and the
        matrix products (what rules look at besides calls), the names imports bind."""
        index = _Index({}, {}, set(), set(), [], {}, [], [], False, [], [], set())
        parents, loads, calls = index.parents, index.loads, index.calls
        stores, classes, withs = index.stores, index.classes, index.withs
        kinds, fields_of, node_type = _KINDS, _OWN_FIELDS, ast.AST
        stack: list[ast.AST] = [self.tree]
        push, pop = stack.append, stack.pop
        while stack:
            node = pop()
            kind = type(node)
            # ast.iter_child_nodes, inlined (the hot loop), pushed last child first, the
            # fields that hold names, constants, contexts or operators not read (fields.py)
            fields = fields_of.get(kind)
            for name in own_fields(kind) if fields is None else fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    for item in reversed(value):
                        if isinstance(item, node_type):
                            parents[item] = node
                            push(item)
                elif isinstance(value, node_type):
                    parents[value] = node
                    push(value)
            # what is recorded of it, by its own type: `ast.parse` makes no subclass
            what = kinds.get(kind)
            if what is None:
                continue
            if what is _NAME:
                if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]  # the type was tested above
                    loads.setdefault(node.id, []).append(node)  # type: ignore[attr-defined]  # the type was tested above
            elif what is _CALL:
                calls.append(node)  # type: ignore[arg-type]  # the type was tested above
            elif what is _ATTRIBUTE:
                context = type(node.ctx)  # type: ignore[attr-defined]  # the type was tested above
                if context is ast.Load:
                    loads.setdefault(node.attr, []).append(node)  # type: ignore[attr-defined]  # the type was tested above
                elif context is ast.Store:
                    stores.setdefault(node.attr, []).append(node)  # type: ignore[attr-defined,arg-type]  # the type was tested above
            elif what is _EXPR:
                if type(node.value) is ast.Call:  # type: ignore[attr-defined]  # the type was tested above
                    index.bare_calls.append(node.value)  # type: ignore[attr-defined]  # the type was tested above
            elif what is _CLASS:
                classes.append(node)  # type: ignore[arg-type]  # the type was tested above
            elif what is _GLOBAL:
                index.declared.update(node.names)  # type: ignore[attr-defined]  # the type was tested above
            elif what is _NONLOCAL:
                index.nonlocal_names.update(node.names)  # type: ignore[attr-defined]  # the type was tested above
            elif what is _WALRUS:
                index.walrus = True
            elif what is _BINOP:
                if type(node.op) is ast.MatMult:  # type: ignore[attr-defined]  # the type was tested above
                    index.matmuls.append(node)  # type: ignore[arg-type]  # the type was tested above
            elif what is _WITH:
                withs.append(node)  # type: ignore[arg-type]  # the type was tested above
            else:  # an import
                index.imported.update(
                    (alias.asname or alias.name).partition(".")[0]
                    for alias in node.names  # type: ignore[attr-defined]  # the type was tested above
                )
        return index

    def index(self) -> None:
        """Build the module's index now, not on first use."""
        _ = self._index

    @property
    def nodes(self) -> int:
        """How many syntax nodes the tree holds (what keeping it costs): counted by its
        index, estimated from its source's size before it is built."""
        if "_index" in self.__dict__:
            return len(self._index.parents) + 1
        return len(self.source) // _BYTES_PER_NODE + 1

    @property
    def parents(self) -> dict[ast.AST, ast.AST]:
        return self._index.parents

    @property
    def declared_global(self) -> set[str]:
        return self._index.declared

    @property
    def declared_nonlocal(self) -> set[str]:
        """The names any function of the module declares `nonlocal` (none: no scope's
        binding of a name is rebound from a nested function)."""
        return self._index.nonlocal_names

    @property
    def classes(self) -> list[ast.ClassDef]:
        return self._index.classes

    @property
    def calls(self) -> list[ast.Call]:
        """Every call, in source order (an outer call before the calls in it)."""
        return self._index.calls

    @property
    def withs(self) -> list[ast.With | ast.AsyncWith]:
        """Every `with` statement, in source order."""
        return self._index.withs

    @property
    def imported(self) -> set[str]:
        """The names the module's imports bind, wherever they are (`jnp` of `import
        jax.numpy as jnp`, `jax` of `import jax.numpy`)."""
        return self._index.imported

    @property
    def matmuls(self) -> list[ast.BinOp]:
        """Every `a @ b`, in source order."""
        return self._index.matmuls

    @property
    def bare_calls(self) -> list[ast.Call]:
        """Every call that is a statement of its own, in source order."""
        return self._index.bare_calls

    @cached_property
    def imports(self) -> list[ast.Import | ast.ImportFrom]:
        """Every import statement, wherever it is."""
        return [
            node
            for node in self._index.parents
            if isinstance(node, (ast.Import, ast.ImportFrom))
        ]

    @cached_property
    def has_star_import(self) -> bool:
        """Whether the module has a `from ... import *` (only module code can)."""
        return any(
            isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
            for node in self._index.parents
        )

    @cached_property
    def has_module_level_with(self) -> bool:
        """Whether a `with` statement runs in the module's own code (not in a function or
        class body)."""
        statements: list[ast.AST] = list(self.tree.body)
        while statements:
            statement = statements.pop()
            if isinstance(statement, (ast.With, ast.AsyncWith)):
                return True
            if isinstance(
                statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                continue
            for child in ast.iter_child_nodes(statement):
                if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                    statements.append(child)
        return False

    def statements_in_walk_order(self, *kinds: type[ast.stmt]) -> list[ast.stmt]:
        """The module's statements of these types in the order `ast.walk` visits them
        (breadth first: by depth, then in source order), found from the index without
        walking the tree: a statement's source position orders it among statements as the
        walk's fields do."""
        found = [
            (self.depth(node), node.lineno, node.col_offset, node)
            for node in self.parents  # every node but the module's own
            if isinstance(node, kinds)
        ]
        found.sort(key=lambda item: item[:3])
        return [item[3] for item in found]

    def depth(self, node: ast.AST) -> int:
        """How many nodes are above `node` in the module's tree (the module's own: 0)."""
        parents, depth = self.parents, 0
        current = parents.get(node)
        while current is not None:
            depth += 1
            current = parents.get(current)
        return depth

    def stores_attribute(self, name: str) -> bool:
        """Whether any code of the module stores `<something>.name`."""
        return name in self._index.stores

    def attribute_stores(self, name: str) -> list[ast.Attribute]:
        """The module's stores `<something>.name = ...`."""
        return list(self._index.stores.get(name, ()))

    @property
    def stored_attributes(self) -> frozenset[str]:
        """The names of the attributes the module stores (`attribute_stores`)."""
        return frozenset(self._index.stores)

    def assigns_self_attribute(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> bool:
        """Whether `function` (or code nested in it) stores `<its first parameter>.name`."""
        return any(
            self.stores_on_first_parameter(store, function)
            for store in self._index.stores.get(name, ())
        )

    def stores_on_first_parameter(
        self, store: ast.Attribute, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> bool:
        """Whether `store` (`x.name = ...`) is code of `function` (or nested in it) and `x`
        is the name of its first parameter (`self` of a method)."""
        params = [*function.args.posonlyargs, *function.args.args]
        return (
            bool(params)
            and isinstance(store.value, ast.Name)
            and store.value.id == params[0].arg
            and self.is_within(store, function)
        )

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The function, lambda, class body or module whose code `node` is part of. A
        decorator, a default or a base class belongs to the scope around the definition.
        Remembered for every node on the way up: deeply nested code costs one walk."""
        scopes = self._scopes
        found = scopes.get(node)
        if found is not None:
            return found
        walked = []
        child = node
        parent = self.parents.get(node)
        found = self.tree
        while parent is not None:
            if isinstance(
                parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                if child in parent.body:
                    found = parent
                    break
            elif isinstance(parent, ast.Lambda):
                if child is parent.body:
                    found = parent
                    break
            walked.append(child)  # its scope is its parent's
            known = scopes.get(parent)
            if known is not None:
                found = known
                break
            child = parent
            parent = self.parents.get(parent)
        scopes[node] = found
        for step in walked:
            scopes[step] = found
        return found

    def is_within(self, node: ast.AST, outer: ast.AST) -> bool:
        """Whether `node` is `outer` or a node under it."""
        current: ast.AST | None = node
        while current is not None:
            if current is outer:
                return True
            current = self.parents.get(current)
        return False

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The innermost statement holding `node` (itself when it is one)."""
        current: ast.AST | None = node
        while current is not None and not isinstance(current, ast.stmt):
            current = self.parents.get(current)
        return current

    @property
    def has_walrus(self) -> bool:
        """Whether the module has an assignment expression (`:=`) anywhere."""
        return self._index.walrus

    def scope_names(self, scope: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
        """`flow.scope_names` of one of the module's scopes: its local names, and those bound
        only by undecorated `def` and `class` statements (found once per tree: they are the
        tree's alone)."""
        found = self._scope_names.get(scope)
        if found is None:
            found = self._scope_names[scope] = scope_names(scope)
        return found

    @property
    def loads_by_name(self) -> dict[str, list[ast.AST]]:
        return self._index.loads

    def line(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 0)


class Project:
    """The files of one run (`files`: where callers of a function are looked for) and the
    directories imports are looked for in (`roots`)."""

    def __init__(
        self,
        roots: tuple[Path, ...] = (),
        files: tuple[Path, ...] = (),
        freeze_trees: bool = False,
    ) -> None:
        self.freeze_trees = freeze_trees  # see `_parse`
        self.created_ns = (
            time.time_ns()
        )  # before anything is read: see jaxfix/check/dependencies.py
        self.roots = tuple(dict.fromkeys(r.resolve() for r in roots))
        # Each file by its real path, and as the run named it (absolute, not resolved: a warm
        # run compares the files it is given with those of the run that filled the cache).
        self.named: dict[Path, Path] = {}
        for file in files:
            self.named.setdefault(file.resolve(), Path(os.path.abspath(file)))
        self.files = tuple(self.named)
        self._modules: dict[Path, tuple[object, Module | Unknown]] = {}
        self._given: dict[Path, bytes] = {}
        self._given_words: dict[Path, set[bytes]] = {}  # made once per given source
        self._given_as_read: dict[Path, bool] = {}  # given the bytes the index read
        # The given paths whose source is not what the index read (None: to be found again)
        self._given_unread: set[Path] | None = None
        self._holding: dict[
            tuple[str, Path, bool], tuple[list[Path], tuple[Lookup, ...]]
        ] = {}
        # word -> the files holding it: one path, or a tuple of them (most words are in one
        # file: a list per word took a third of the index's memory)
        self._word_index: dict[bytes, Path | tuple[Path, ...]] | None = None
        self._read_digests: dict[Path, bytes] = {}  # of the bytes the index read
        self._order = {path: n for n, path in enumerate(self.files)}
        self._states: dict[Path, str] = {}
        self._real: dict[Path, Path] = {}
        self._current: Path | None = None
        self.record = Record()
        # Each of the run's files as the word index read it: its signature before and after
        # the read (None: unreadable, or changed while read). Filled when the index is built.
        self.files_seen: dict[Path, Signature | None] = {}
        # The run's summaries of parsed modules (None: none kept); `module_loading` reads them.
        self.summaries: LoadSummaries | None = None
        self._summarised: dict[Path, tuple[object, bytes]] = {}  # path -> (key, digest)
        # digest of a module's code -> its spelled imports (`spelled_imports`)
        self._spelled: dict[bytes, list[tuple[str, int]] | None] = {}

    def real(self, path: Path) -> Path:
        """`path.resolve()`, as first resolved in this run (each resolution reads every
        directory on the way, and modules are asked for by path thousands of times)."""
        found = self._real.get(path)
        if found is None:
            found = self._real[path] = path.resolve()
        return found

    @property
    def current(self) -> Path | None:
        """The module `record` is for (the last `begin`), by its real path."""
        return self._current

    @property
    def read(self) -> set[Path]:
        """The files the current module's answers used (a cached result's dependencies)."""
        return self.record.files

    def begin(self, path: Path) -> None:
        """Start recording for the module at `path`; the previous module's tree is let go
        (a later question that reaches it parses it again): the trees of the modules a run
        checks are most of the engine's memory, and each is asked about once. Other modules
        are kept up to `KEPT_NODES`. Only here: within one module's questions a tree
        is never parsed twice (its nodes are the answers' identities)."""
        path = self.real(path)
        if self._current is not None and self._current != path:
            self._modules.pop(self._current, None)
        kept = sum(m.nodes for _, m in self._modules.values() if isinstance(m, Module))
        for old in list(self._modules):  # least recently used first
            if kept <= KEPT_NODES:
                break
            _, let_go = self._modules.pop(old)
            if isinstance(let_go, Module):
                kept -= let_go.nodes
        self._current = path
        self.record = Record()

    # -- reading --------------------------------------------------------------------------

    def add_source(self, path: Path, source: bytes) -> Module | Unknown:
        """A module whose source the caller holds (stdin, a notebook's code, an editor buffer)."""
        self.give(path, source)
        return self.module(path)

    def give(self, path: Path, source: bytes) -> None:
        """`add_source` without reading it now: what the module at `path` holds from here on
        (a file's own bytes again after its fix was checked, so that no later module's answer
        reads a fix that was not written)."""
        path = self.real(path)
        before = self._given.get(path)
        if before is not None and before != source:
            self._holding.clear()  # its words may have changed: searched again
        self._given[path] = source
        self._given_words.pop(path, None)
        self._given_as_read.pop(path, None)
        self._given_unread = None
        read = self._modules.pop(path, None)
        if (
            read is not None
            and isinstance(read[1], Module)
            and read[1].source == source
        ):
            # parsed already (an earlier module's answers read it): these very bytes
            self._modules[path] = (("given", id(source)), read[1])

    def module(self, path: Path) -> Module | Unknown:
        found = self._module(path, None)
        assert found is not None  # only a search for a name skips a module
        return found

    def module_loading(self, path: Path, name: str) -> Module | Unknown | None:
        """`module(path)` for a search of the code reading `name` (a function's callers), or
        None where no code of the module reads a name or attribute `name`, so that the
        search finds nothing there: known without parsing it from a summary of the run
        (`summaries`: a parse of these very bytes, by this process or another), or from its
        code spelling the name only where a `def` or `class` of its own gives it, or parsed
        now and then not kept (nothing of it is in an answer; most such modules name a
        method of the same name, and would stay parsed through the module's questions).
        Recorded as `module` records it (its bytes are what the answer depends on)."""
        return self._module(path, name)

    def module_storing(self, path: Path, name: str) -> Module | Unknown | None:
        """`module_loading` for a search of the code storing the attribute `name` (`x.name =
        ...`): None where no code of the module stores it, known from the run's summary of
        its bytes, from its code spelling no attribute `.name`, or from a parse not kept."""
        return self._module(path, name, stores=True)

    def _module(
        self, path: Path, name: str | None, stores: bool = False
    ) -> Module | Unknown | None:
        path = self.real(path)
        given = self._given.get(path)
        if given is not None:
            key: object = ("given", id(given))
            self.record.files.add(path)
        else:
            try:
                stat = path.stat()
            except OSError as error:
                self.state(path)
                return Unknown(f"{path.name}: {error.strerror or error}")
            key = (stat.st_mtime_ns, stat.st_size)
            self.record.files.add(path)
        cached = self._modules.pop(path, None)
        if cached is not None and cached[0] == key:
            self._modules[path] = cached  # the most recently used last
            return cached[1]
        summarised = self._summarised.get(path) if name is not None else None
        if (
            summarised is not None
            and summarised[0] == key
            and self._has_no(summarised[1], name, stores)
        ):
            return None
        # a source given (a module the run checks, once it is let go) is searched as a
        # file read is: a run's searches reach many modules it checked before
        code = given if given is not None else _code_at(path)
        found: Module | Unknown
        if isinstance(code, Unknown):
            found = code
        else:
            if name is not None and self.summaries is not None:
                digest = _digest(code)
                self._summarised[path] = (key, digest)
                if self._has_no(digest, name, stores) or (
                    not _attribute_spelled(code, name)
                    if stores
                    else _only_defined(code, name)
                ):
                    return None
            found = self._parse(path, code)
            if (
                name is not None
                and self.summaries is not None
                and isinstance(found, Module)
                and name
                not in (found.stored_attributes if stores else found.loads_by_name)
            ):
                # parsed for this search alone, which finds nothing in it: not
                # kept (nothing of it is in an answer; its summary is)
                return None
        self._modules[path] = (key, found)
        return found

    def code(self, path: Path) -> bytes | None:
        """The code `module(path)` parses (a notebook's cells), read without parsing it (a
        module kept parsed gives its own), or None where it cannot be read; recorded as
        `module` records it."""
        path = self.real(path)
        kept = self._modules.get(path)
        given = self._given.get(path)
        if given is not None:
            self.record.files.add(path)
            return given
        try:
            stat = path.stat()
        except OSError:
            self.state(path)
            return None
        self.record.files.add(path)
        if (
            kept is not None
            and kept[0] == (stat.st_mtime_ns, stat.st_size)
            and isinstance(kept[1], Module)
        ):
            return kept[1].source
        try:
            raw = read_regular(path, _MAX_SOURCE_BYTES)
        except ReadError:
            return None
        return code_of(path, raw)

    def spelled_imports(self, path: Path) -> list[tuple[str, int]] | None:
        """`spelled_imports` of the code `code(path)` reads (recorded as it records it): the
        modules its import statements may name, scanned once per run for these bytes (a
        module is searched for the callers of many functions); None where it cannot be read
        or may import any module."""
        code = self.code(path)
        if code is None:
            return None
        digest = _digest(code)
        if digest not in self._spelled:
            self._spelled[digest] = spelled_imports(code)
        return self._spelled[digest]

    def _has_no(self, digest: bytes, name: str | None, stores: bool) -> bool:
        """Whether the run's summary of the module with these bytes says no code of it
        reads `name` (`stores`: stores an attribute `name`); False when there is no summary:
        the module is parsed."""
        if name is None or self.summaries is None:
            return False
        summary = self.summaries.get(digest)
        return summary is not None and name not in summary[1 if stores else 0]

    def _parse(self, path: Path, source: bytes) -> Module | Unknown:
        """`_parse`, with no collection while the tree is built (it makes no garbage, and
        collections its allocations start would traverse the new nodes for nothing); with
        `freeze_trees`, indexed and frozen (`gc.freeze`) at once: never traversed by the
        collector, still freed when let go (a tree holds no cycles)."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            found = _parse(path, source)
            if self.freeze_trees and isinstance(found, Module):
                found.index()
                gc.freeze()  # what is alive now: the run's questions hold no cycles either
            if self.summaries is not None and isinstance(found, Module):
                self.summaries.put(
                    _digest(source),
                    frozenset(found.loads_by_name),
                    found.stored_attributes,
                )
        finally:
            if enabled:
                gc.enable()
        return found

    def holding(self, node: ast.AST) -> Module | None:
        """The parsed module of the run whose tree holds `node` (while it is kept)."""
        for _, found in self._modules.values():
            if isinstance(found, Module) and (
                node is found.tree or node in found.parents
            ):
                return found
        return None

    def given(self, path: Path) -> bytes | None:
        """The source the caller gave for `path` (`add_source`), if any."""
        return self._given.get(self.real(path))

    def state(self, path: Path) -> str:
        """What is at `path` (one of jaxfix.sources.paths.PATH_STATES), as first seen in this run;
        recorded: an import looked for there finds another module once that changes."""
        found = self._states.get(path)
        if found is None:
            found = self._states[path] = path_state(path)
        self.record.places[path] = found
        return found

    def candidate_files(
        self,
        needle: str,
        near: Path,
        imported: bool = True,
        limit: int = MAX_CALLER_MODULES,
    ) -> list[Path] | Unknown:
        """The run's modules that may use the name `needle` defined in the module at `near`:
        those whose words hold the name and the module's own name (an import of it), found
        in the run's word index (one pass over the files' bytes); the caller parses each only
        when its search gets that far. Without `imported`, every module holding the word
        (an attribute's name: `obj.set_value = ...` needs no import). More than `limit`
        modules: Unknown (each would be parsed)."""
        key = (needle, near, imported)
        cached = self._holding.get(key)
        if cached is None:
            stem = near.parent.name if near.name == "__init__.py" else near.stem
            holders, lookup = self._holding_words(needle, stem if imported else None)
            lookups = [lookup]
            if imported:
                # a package above the module may re-export the name (`from .m import f` in
                # pkg/__init__.py): who reads it as `pkg.f` need not name the module
                packages = {near.parent} if near.name == "__init__.py" else set()
                searched = set(packages)
                while True:
                    above = {
                        p.parent
                        for p in holders
                        if p.name == "__init__.py"
                        and p.parent in near.parents
                        and p.parent not in searched
                    }
                    if not above:
                        break
                    for package in sorted(above):
                        searched.add(package)
                        more, lookup = self._holding_words(needle, package.name)
                        holders |= more
                        lookups.append(lookup)
            paths = sorted(
                (p for p in holders if p != near),
                key=lambda p: (self._order.get(p, len(self._order)), str(p)),
            )
            cached = self._holding[key] = (paths, tuple(lookups))
        self.record.lookups.update(cached[1])
        paths = cached[0]
        if len(paths) > limit:
            return Unknown(f"{len(paths)} modules may use `{needle}`")
        return paths

    def _holding_words(self, needle: str, stem: str | None) -> tuple[set[Path], Lookup]:
        """The run's files holding the word `needle` and the words of `stem` (a module's
        name; None: no more), and the search as recorded."""
        wanted = [needle.encode(), *(split_words(stem) if stem is not None else ())]
        found = self._holders(wanted)  # the index, built: what `_as_read` compares with
        if self._given_unread is None:  # once per given source, not once per search
            self._given_unread = {p for p in self._given if not self._as_read(p)}
        unread = self._given_unread
        holders = {path for path in found if path not in unread}
        holders.update(
            path
            for path in unread
            if all(word in self._words_given(path) for word in wanted)
        )
        lookup = Lookup(
            tuple(w.decode("utf-8", "surrogateescape") for w in wanted),
            frozenset(holders),
        )
        return holders, lookup

    def _as_read(self, path: Path) -> bool:
        """Whether the source given for `path` is what the word index read there (the run
        gives each file it checks as source: its words are then the index's)."""
        found = self._given_as_read.get(path)
        if found is None:
            read = self._read_digests.get(path)
            found = read is not None and read == _digest(self._given[path])
            self._given_as_read[path] = found
        return found

    def _words_given(self, path: Path) -> set[bytes]:
        found = self._given_words.get(path)
        if found is None:
            found = self._given_words[path] = words_of(self._given[path])
        return found

    def index_words(self) -> None:
        """Build the run's word index now, not on the first search: a process that forks
        workers builds it once for all of them (jaxfix/check/runner.py)."""
        if self._word_index is None:
            lists: dict[bytes, list[Path]] = {}
            for path in self.files:
                for word in self._read_words(path):
                    lists.setdefault(word, []).append(path)
            self._word_index = {
                word: paths[0] if len(paths) == 1 else tuple(paths)
                for word, paths in lists.items()
            }
            del lists

    def _holders(self, words: list[bytes]) -> list[Path]:
        """The run's files (as read once, for the index) holding every one of `words`."""
        self.index_words()
        assert self._word_index is not None
        postings = sorted(
            (_postings(self._word_index.get(w, ())) for w in words), key=len
        )
        if not postings:
            return []
        found = set(postings[0])  # the rarest word first: the sets stay small
        for holding in postings[1:]:
            if not found:
                break
            found.intersection_update(holding)
        return sorted(found, key=self._order.__getitem__)

    def _read_words(self, path: Path) -> set[bytes]:
        """A file's words for the index, and its signature in `files_seen`."""
        self.files_seen[path] = None
        try:
            with open_regular(path, limit=_MAX_SOURCE_BYTES) as handle:
                before = os.fstat(handle.fileno())
                raw = handle.read(_MAX_SOURCE_BYTES + 1)
                after = os.fstat(handle.fileno())
        except (OSError, ReadError):
            return set()
        signature = _signature(after)
        if len(raw) > _MAX_SOURCE_BYTES or _signature(before) != signature:
            return set()
        self.files_seen[path] = signature
        code = code_of(path, raw)
        if code is None:
            return set()
        self._read_digests[path] = _digest(code)
        return words_of(code)

    # -- imports ----------------------------------------------------------------------------

    def find(self, name: str, level: int, importer: Path) -> ModuleRef | Unknown:
        """The module `name` imported with `level` leading dots by the module in `importer`."""
        parts = [p for p in name.split(".") if p]
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            if not all(
                self._is_package(d)
                for d in (importer.parent, *importer.parent.parents)[:level]
            ):
                return Unknown(
                    f"`{'.' * level}{name}` goes above the top-level package"
                )
            found = _module_in(base, parts, self.state)
            return found or Unknown(f"no module `{'.' * level}{name}` in {base}")
        for directory in self._search_dirs(importer):
            found = _module_in(directory, parts, self.state)
            if found is not None:
                return found
        return Unknown(f"`{name}` is not a module of this tree")

    def submodule(self, package: ModuleRef, name: str) -> ModuleRef | None:
        if package.directory is None:
            return None
        return _module_in(package.directory, [name], self.state)

    def _is_package(self, directory: Path) -> bool:
        return self.state(directory / "__init__.py") == "file" or any(
            root in directory.parents for root in self.roots
        )

    def _search_dirs(self, importer: Path) -> Iterator[Path]:
        top = importer.parent
        while self.state(top / "__init__.py") == "file":
            top = top.parent
        seen = set()
        for directory in (top, *(d for r in self.roots for d in (r, r / "src"))):
            if directory not in seen:
                seen.add(directory)
                yield directory


def _only_defined(code: bytes, name: str) -> bool:
    """Whether `code` holds the word `name` only where a `def` or `class` statement gives it
    as its own name (`def name(`, a test method of the same name as the function searched
    for): no code of it reads the name, as every read of it is spelled as the word. Anything
    else spelling the word (an attribute, a comment, `def \\` and a continued line) leaves
    the question to the parse."""
    word = re.escape(name.encode())
    spelled = len(re.findall(_NOT_AFTER_WORD + word + _NOT_BEFORE_WORD, code))
    defined = len(
        re.findall(
            _NOT_AFTER_WORD + rb"(?:def|class)[ \t]+" + word + _NOT_BEFORE_WORD, code
        )
    )
    return spelled == defined


def _attribute_spelled(code: bytes, name: str) -> bool:
    """Whether `code` may spell an attribute `name` (`.name`, the dot and the name apart by
    spaces, continued lines or comments, as Python allows between brackets): a store of one
    is spelled so."""
    return (
        re.search(
            # a comment runs to its line's end: no backtracking through a long one
            rb"\.(?:\s|\\|#[^\r\n]*(?![^\r\n]))*"
            + re.escape(name.encode())
            + _NOT_BEFORE_WORD,
            code,
        )
        is not None
    )


def _code_at(path: Path) -> bytes | Unknown:
    """The code of the file at `path` (a notebook's cells), or why it cannot be read."""
    try:
        raw = read_regular(path, _MAX_SOURCE_BYTES)
    except ReadError as error:
        return Unknown(f"{path.name}: {error}")
    code = code_of(path, raw)
    if code is None:
        return Unknown(f"{path.name}: not a notebook jaxfix can read")
    return code


def _postings(found: Path | tuple[Path, ...]) -> tuple[Path, ...]:
    return (found,) if isinstance(found, Path) else found


def _digest(source: bytes) -> bytes:
    return hashlib.blake2b(source, digest_size=16).digest()


def _signature(status: os.stat_result) -> Signature:
    """What changes whenever a file's bytes do (as jaxfix/check/dependencies.py's)."""
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino


def _parse(path: Path, source: bytes) -> Module | Unknown:
    """The module (code in a newer Python's grammar read with its new constructs blanked,
    where that is possible), or Unknown: a syntax error, or code in a newer Python's grammar
    than the running one's that could not be blanked (jaxfix/sources/grammar.py names which)."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as error:
        found = readable(source, error)
        if isinstance(found, Blanked):
            return Module(path, found.tree, source, found.regions)
        error = found  # where the code stops being readable
        needed = needed_python(error, source)
        if needed is not None:
            (major, minor), what = needed
            return Unknown(
                f"{path.name} needs Python {major}.{minor}'s grammar ({what}, line "
                f"{error.lineno}), newer than the running Python's"
            )
        return Unknown(f"{path.name} does not parse: SyntaxError")
    except (ValueError, RecursionError, MemoryError) as error:
        return Unknown(f"{path.name} does not parse: {type(error).__name__}")
    return Module(path, tree, source)


def _module_in(
    directory: Path, parts: list[str], state: Callable[[Path], str]
) -> ModuleRef | None:
    """`a.b.c` below `directory`: a file `a/b/c.py`, a package `a/b/c/__init__.py`, or a
    namespace package `a/b/c/`."""
    if not parts:
        return _package(directory, state)
    current = directory
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if last and state(current / f"{part}.py") == "file":
            return ModuleRef(current / f"{part}.py", None)
        current = current / part
        if state(current) != "directory":
            return None
    return _package(current, state)


def _package(directory: Path, state: Callable[[Path], str]) -> ModuleRef:
    init = directory / "__init__.py"
    return ModuleRef(init if state(init) == "file" else None, directory)
