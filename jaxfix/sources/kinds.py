"""Which kind of `Source` (jaxfix/sources/source.py) a file is: the one place that tells a
notebook by its name. A tree without notebooks never imports jaxfix/sources/notebook.py."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from jaxfix.ground.diagnostics import FileResult
from jaxfix.sources.paths import is_notebook
from jaxfix.sources.source import PythonSource, Source


def kind_of(path: Path | str) -> type[Source]:
    """The kind of source the file at `path` is, before it is read."""
    if is_notebook(path):
        from jaxfix.sources.notebook import NotebookSource

        return NotebookSource
    return PythonSource


def source_of(path: Path, original: bytes) -> Source:
    """The file at `path` (or a buffer named so) holding `original`."""
    return kind_of(path)(path, original)  # type: ignore[call-arg]  # both are (path, bytes)


def from_text(path: Path, text: str) -> Source:
    """An editor's text of the file at `path`, as the bytes the file would hold: a `.py` in
    the encoding its coding cookie declares (as the CLI reads it), a notebook in UTF-8."""
    raw = text.encode("utf-8", "surrogatepass")
    if kind_of(path) is PythonSource:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
            raw = text.encode(encoding)
        except (SyntaxError, LookupError, UnicodeError):
            pass
    return source_of(path, raw)


def as_stored(result: FileResult) -> FileResult:
    """The result with its places in the file's own text, for the formats that annotate or
    patch the file as it is stored (a notebook's JSON lines; a `.py` file's are its own)."""
    if result.source is None:
        return result
    return source_of(result.path, result.source).stored(result)
