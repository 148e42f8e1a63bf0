"""Reading a file for the engine and writing its fix back.

Kept free of libcst so that a run which parses nothing (no file passes the prefilter, or every
candidate is cached) never pays for importing it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

from jaxfix.diagnostics import FileResult
from jaxfix.diffs import decode
from jaxfix.options import Options
from jaxfix.safe_write import LateCheck, WriteError, replace_source


def read_source(path: Path, options: Options) -> bytes | FileResult:
    """The file's bytes, or a FileResult saying why they cannot be had.

    Only regular files are read: a FIFO would block forever and a device never ends. The file
    is opened without blocking and checked before any byte is read.
    """
    try:
        mode = os.stat(path).st_mode  # a socket cannot even be opened
        if not stat.S_ISREG(mode):
            return FileResult(path, None, error=f"not a regular file ({_kind(mode)}); not read")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        return FileResult(path, None, error=f"cannot read: {error.strerror or error}")
    with os.fdopen(fd, "rb") as handle:
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):  # replaced since the check above
                return FileResult(path, None, error=f"not a regular file ({_kind(st.st_mode)}); not read")
            if st.st_size > options.max_file_size:
                return FileResult(path, None, error=_too_large(st.st_size, options))
            source = handle.read(options.max_file_size + 1)  # bounded: the file may grow meanwhile
        except OSError as error:
            return FileResult(path, None, error=f"cannot read: {error.strerror or error}")
    if len(source) > options.max_file_size:
        return FileResult(path, None, error=_too_large(len(source), options))
    return source


def _too_large(size: int, options: Options) -> str:
    return f"file is larger than max-file-size ({size} > {options.max_file_size} bytes)"


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def unreadable_reason(source: bytes) -> str | None:
    """Cheap checks run on every file, parsed or not: binary content and undecodable text."""
    if b"\0" in source:
        return "not a Python source file (contains NUL bytes)"
    try:
        decode(source)
    except UnicodeDecodeError as error:
        return _undecodable(error)
    except (LookupError, SyntaxError) as error:  # unknown or malformed coding cookie
        if "invalid or missing encoding declaration" in str(error):
            try:
                source.decode("utf-8")
            except UnicodeDecodeError as utf8_error:
                return _undecodable(utf8_error)
        return f"cannot decode: {error}"
    return None


def _undecodable(error: UnicodeDecodeError) -> str:
    return (
        f"cannot decode as {error.encoding} (byte {error.object[error.start]:#04x} at offset {error.start}); "
        "declare the encoding with a PEP 263 coding comment"
    )


def write_fix(result: FileResult, late_checks: list[LateCheck] | None = None) -> FileResult:
    """Write `result.fixed` over the file if it still holds `result.source`; say how it went.

    With `late_checks`, the caller confirms the write later (see safe_write.confirm_writes).
    """
    if result.fixed is None or result.error is not None:
        return result
    try:
        replace_source(result.path, result.fixed, expected=result.source, late_checks=late_checks)
    except WriteError as error:
        return replace(result, error=f"cannot write: {error}")
    return replace(result, written=True)


def undo_written(results: list[FileResult], undone: dict[Path, str]) -> list[FileResult]:
    """Results whose write a late check undid become errors."""
    return [replace(r, written=False, error=f"cannot write: {undone[r.path]}") if r.path in undone else r for r in results]
