"""One way in for every text jaxfix checks: a `.py` file, a notebook, an editor's buffer.

A `Source` gives the engine the Python code to check (`code`), turns what the engine found in
that code into the original's result (`result`: positions mapped back, `cell N:line:col` in a
notebook, the fixed code spliced into the original's bytes), and places a result in the text
as it is stored (`stored`: a notebook's JSON lines, for the formats that annotate or patch the
file). The engine checks a Source and knows no kind of file: jaxfix/sources/kinds.py is the one
place that tells a notebook by its name. A Python file is `PythonSource` here; the notebook
kinds (a `.ipynb` file, and a notebook document an editor holds as cells) live in
jaxfix/sources/notebook.py, imported only for a notebook.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location
from jaxfix.sources.syntax import syntax_error
from jaxfix.sources.text import decode


class SourceError(Exception):
    """The original is not one jaxfix can read or write back; one line for the user."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.location = location


@dataclass(frozen=True)
class Part:
    """One piece of a fix as a diff shows it: the whole file (`cell` None), or one cell."""

    label: str  # after the file's name: "" or ":cell N"
    old: bytes
    new: bytes
    cell: int | None = None


class Source:
    """A text to check: its `path` (where its imports are looked up from, how it is named) and
    its `original` bytes (what a result's `source` holds). This base class is a Python file's,
    whose code is its bytes: every mapping is the identity."""

    path: Path
    original: bytes
    # Whether the cache may settle an unchanged file of this kind without reading it (a
    # notebook's shape is checked every run).
    settles_unread: ClassVar[bool] = True
    # Whether a suppression (noqa) comment can be written on its lines.
    takes_comments: ClassVar[bool] = True
    # Whether its code is cells (which an IPython traceback's frames name).
    has_cells: ClassVar[bool] = False

    def problem(self) -> FileResult | None:
        """The cheap check of its shape, before any rule: the file's error, or None."""
        return None

    def code(self) -> bytes:
        """The Python code the engine checks; SourceError when the original cannot be read."""
        return self.original

    def code_lines(self, lines: frozenset[int] | None) -> frozenset[int] | None:
        """Lines of the original (as `git diff` counts them) as lines of the code."""
        return lines

    def place(self, location: Location) -> Location:
        """A place in the code as a place in the original."""
        return location

    def located(self, diagnostic: Diagnostic) -> Diagnostic:
        """A diagnostic of the code as one of the original."""
        return diagnostic

    def spliced(self, fixed: bytes) -> bytes:
        """The original with the fixed code put back (SourceError: it cannot be)."""
        return fixed

    def result(
        self, fixed: bytes | None, diagnostics: tuple[Diagnostic, ...]
    ) -> FileResult:
        """The original's result from the engine's on the code (`fixed` None: unchanged)."""
        found = tuple(map(self.located, diagnostics))
        if fixed is None:
            return FileResult(self.path, self.original, None, found)
        try:
            new = self.spliced(fixed)
        except SourceError as error:
            return FileResult(self.path, self.original, error=str(error))
        return FileResult(
            self.path, self.original, None if new == self.original else new, found
        )

    def failed(self, message: str, where: Location | None, lasting: bool) -> FileResult:
        """The engine's failure on the code, placed in the original."""
        return FileResult(
            self.path,
            self.original,
            error=message,
            error_location=None if where is None else self.place(where),
            lasting_error=lasting,
        )

    def unreadable(self, error: SourceError) -> FileResult:
        """The result when the original cannot be read (its code cannot be made): said as it
        is, a lasting error of these bytes."""
        return FileResult(
            self.path,
            self.original,
            error=str(error),
            error_location=error.location,
            lasting_error=True,
        )

    def syntax_error(self) -> tuple[str, Location] | None:
        """The first syntax error in its code (for `--strict`, stdin), placed in the original."""
        return syntax_error(self.original)

    def stored(self, result: FileResult) -> FileResult:
        """The result with its places in the original's own text (the same for a `.py`)."""
        return result

    def original_lines(self, start: Location, end: Location) -> tuple[int, int]:
        """The first and last line of the original (as `code_lines` takes them) holding the
        places from `start` to `end`, as this source's results or `stored` name them."""
        return start.line, end.line

    def diff(self, display_path: str, fixed: bytes) -> str | None:
        """Its own readable diff of the fix (a notebook's, cell by cell); None: the bytes' diff."""
        return None

    def parts(self, fixed: bytes) -> list[Part]:
        """What a diff of the fix shows: the whole file, or each changed cell."""
        return [Part("", self.original, fixed)]

    def texts(self, fixed: bytes) -> dict[int | None, str]:
        """The fixed text an editor shows: the whole (key None), or each cell by number."""
        return {None: decode(fixed)}


@dataclass(frozen=True)
class PythonSource(Source):
    path: Path
    original: bytes
