"""Values that cross module lines: what rules report and what the engine returns per file."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only annotations: importing libcst costs half a second
    import ast
    from collections.abc import Callable

    import libcst as cst

    # A fix's edit over `ast`: given the LibCST node found where the `ast` node is, its
    # replacement (built from it, so that the user's formatting is kept).
    CstReplacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel
    Edit = Callable[[cst.CSTNode], CstReplacement]


class Safety(enum.Enum):
    """Whether a fix may be applied without `--unsafe-fixes`."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Location:
    """A 1-based line and 1-based column; in a notebook, of the 1-based `cell` (see notebook.py)."""

    line: int
    column: int
    cell: int | None = None

    def __str__(self) -> str:
        """`line:col`, or `cell N:line:col` (ruff's way of naming a place in a notebook)."""
        return (
            f"{self.line}:{self.column}"
            if self.cell is None
            else f"cell {self.cell}:{self.line}:{self.column}"
        )


@dataclass(frozen=True)
class DataEdit:
    """A change to a data file the code reads (a JSON config's entry): the bytes at `span`
    become `text`, written only while the file still has the SHA-256 `digest` it had when the
    fix was made (jaxfix/write/data_edits.py)."""

    path: Path
    span: tuple[int, int]
    text: bytes
    digest: str


@dataclass(frozen=True)
class Fix:
    """Edits plus the imports they need. An edit is `(ast node, edit)`: the engine finds the
    LibCST node where the `ast` node is and replaces it by `edit(that node)`. A fix with `data`
    and no edits changes a data file, not the Python file it is reported in."""

    title: str
    edits: tuple[tuple[ast.AST, Edit], ...]
    safety: Safety = Safety.SAFE
    imports: tuple[tuple[str, str | None], ...] = ()
    data: tuple[DataEdit, ...] = ()


@dataclass(frozen=True)
class Related:
    """Another place a diagnostic refers to (e.g. the enclosing mesh for JAX002), in the
    diagnostic's own file or, with `path`, in another (where a value it is about is written)."""

    message: str
    start: Location
    path: Path | None = None


@dataclass(frozen=True)
class Report:
    """What a rule says about one node, before the engine turns it into a Diagnostic."""

    code: str
    message: str
    node: ast.AST
    fix: Fix | None = None
    related: tuple[Related, ...] = ()


@dataclass(frozen=True)
class Diagnostic:
    """A finding in the original source, plain data (no CST), ready for any output format."""

    code: str
    message: str
    start: Location
    end: Location
    fix_title: str | None = None
    fix_safety: Safety | None = None
    applied: bool = False
    related: tuple[Related, ...] = ()
    fix_lines: tuple[int, int] | None = (
        None  # first and last line the fix's edits replace (not its imports)
    )
    fix_cell: int | None = None  # in a notebook: the cell of `fix_lines`
    data_edits: tuple[DataEdit, ...] = ()  # the fix's changes to a data file
    # the fix was allowed, yet is not made (another fix changes its place another way, its
    # file cannot be written, stdin): the message ends with why; no output offers it
    withheld: bool = False


@dataclass(frozen=True)
class Dependency:
    """Another file whose content the analysis used (a module the file imports), as it was then.

    `digest` is the SHA-256 of its bytes, None when jaxfix cannot vouch for the bytes it used
    (unreadable, or changed while jaxfix ran): such a result is not cached. `signature` is
    (size, mtime_ns, ctime_ns, inode) when the digest was taken: the cache's fast check.
    For a path an import was looked for at (a module created there later may shadow the one
    used, or appear where none was), `digest` is what was there instead: one of
    `jaxfix.sources.paths.PATH_STATES`, never a SHA-256.
    """

    path: Path
    digest: str | None
    signature: tuple[int, int, int, int] | None = None


@dataclass(frozen=True)
class WordLookup:
    """A search of the run's files by words that an answer used (the callers of a function are
    looked for in the files naming it): `holders` are the files that held every one of `words`
    when the run's files were as `files` records (jaxfix/check/dependencies.py's `RunFiles`, by its
    digest). A file that comes to hold them, or stops holding them, may change the answer."""

    words: tuple[str, ...]
    holders: frozenset[Path]
    files: str


class Outcome(enum.Enum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    FAILED = "failed"


@dataclass(frozen=True)
class FileResult:
    """Everything jaxfix learned about one file; `fixed` is None when nothing changes."""

    path: Path
    source: bytes | None
    fixed: bytes | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    error: str | None = None
    error_location: Location | None = None
    written: bool = False
    dependencies: tuple[
        Dependency, ...
    ] = ()  # other files the result depends on, by path
    lookups: tuple[WordLookup, ...] = ()  # searches of the run's files it depends on
    # The error follows from the bytes alone (a notebook that does not validate, a syntax error,
    # code nested too deeply): the same bytes give it again, so it is cached like a result.
    lasting_error: bool = False
    # Calls a rule looked at and left, each with the step where a value's trail ended (`-v`)
    trails: tuple[Diagnostic, ...] = ()
    # The file would change, its fix not derived again: the cache's result for a run that
    # writes and shows no fixed code (jaxfix/cache/store.py); `fixed` is then None.
    fix_pending: bool = False
    # The file with the unsafe fixes too, for a run that previews them (`Run.previews_unsafe`,
    # jaxfix/check/unsafe_preview.py); None: none to show.
    unsafe_fixed: bytes | None = None

    @property
    def changes(self) -> bool:
        """Whether the file changes (or would): its fix derived, or pending in the cache."""
        return self.fixed is not None or self.fix_pending

    @property
    def outcome(self) -> Outcome:
        if self.error is not None:
            return Outcome.FAILED
        return Outcome.CHANGED if self.changes else Outcome.UNCHANGED

    @property
    def remaining(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if not d.applied)
