"""Reading files, the one way jaxfix reads any, and writing a fix back.

Whatever jaxfix reads may come from a stranger's pull request: sources, notebooks, configs,
logs, cache entries, evidence files. So every read takes regular files only (a FIFO, a
device or a directory is one error, never a hang or an endless read), is bounded in size, and
text is decoded as its producer wrote it: Python files with their own encoding and Python's
own line breaks, logs streamed a chunk at a time in the encoding their BOM names.

Kept free of libcst so that a run which parses nothing (no file passes the prefilter, or every
candidate is cached) never pays for importing it.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from jaxfix.ground.diagnostics import FileResult
from jaxfix.settings.options import Options
from jaxfix.sources.text import decode, split_lines
from jaxfix.write.safe_write import LateCheck, WriteError, replace_source


class ReadError(Exception):
    """Why a file was not read, in one line."""


def open_regular(
    path: Path | str,
    *,
    limit: int | None = None,
    bound: str | None = None,
    follow_symlinks: bool = True,
) -> BinaryIO:
    """The file opened for reading, if it is a regular file of at most `limit` bytes (ReadError
    otherwise; `bound` names the setting the limit comes from, for the message).

    A FIFO would block forever and a device never ends, so the file is checked before it is
    opened (a socket cannot even be opened), opened without blocking and checked again (it may
    have been replaced meanwhile). `follow_symlinks=False`: a symlink is refused, not followed.
    """
    try:
        mode = os.stat(path, follow_symlinks=follow_symlinks).st_mode
        if stat.S_ISLNK(mode):
            raise ReadError("a symbolic link; not read")
        if not stat.S_ISREG(mode):
            raise ReadError(f"not a regular file ({_kind(mode)}); not read")
        fd = os.open(
            path,
            os.O_RDONLY
            | os.O_NONBLOCK
            | os.O_CLOEXEC
            | (0 if follow_symlinks else os.O_NOFOLLOW),
        )
    except OSError as error:
        raise ReadError(f"cannot read: {error.strerror or error}") from None
    try:
        st = os.fstat(fd)
    except OSError as error:
        os.close(fd)
        raise ReadError(f"cannot read: {error.strerror or error}") from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise ReadError(f"not a regular file ({_kind(st.st_mode)}); not read")
    if limit is not None and st.st_size > limit:
        os.close(fd)
        raise ReadError(too_large(st.st_size, limit, bound))
    return os.fdopen(fd, "rb")


def read_regular(
    path: Path | str,
    limit: int,
    *,
    bound: str | None = None,
    follow_symlinks: bool = True,
) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; ReadError otherwise.

    `bound` names the setting the limit comes from, for the message. Every file jaxfix reads
    (sources, notebooks, configs, logs, cache entries, evidence files) is read through here or
    `open_regular`.
    """
    with open_regular(
        path, limit=limit, bound=bound, follow_symlinks=follow_symlinks
    ) as handle:
        try:
            data = handle.read(limit + 1)  # bounded: the file may grow meanwhile
        except OSError as error:
            raise ReadError(f"cannot read: {error.strerror or error}") from None
    if len(data) > limit:
        raise ReadError(too_large(len(data), limit, bound))
    return data


def too_large(size: int, limit: int, bound: str | None) -> str:
    return f"file is larger than {bound or 'the limit'} ({size} > {limit} bytes)"


def read_source(path: Path, options: Options) -> bytes | FileResult:
    """The file's bytes, or a FileResult saying why they cannot be had."""
    try:
        return read_regular(path, options.max_file_size, bound="max-file-size")
    except ReadError as error:
        return FileResult(path, None, error=str(error))


def source_lines(path: Path, limit: int) -> list[str]:
    """A Python file's lines as Python numbers them: decoded with the file's own encoding (its
    BOM or PEP 263 cookie) and split only at \\n, \\r\\n and \\r (a form feed or \\u2028 inside a
    line does not end it, as it would for `str.splitlines`). ReadError if it cannot be had."""
    data = read_regular(path, limit, bound="max-file-size")
    reason = unreadable_reason(data)
    if reason is not None:
        raise ReadError(reason)
    return [line.rstrip("\r\n") for line in split_lines(decode(data))]


@dataclass(frozen=True)
class TextLine:
    number: int  # 1-based
    text: str  # without its line break; each byte the encoding cannot decode is U+DC00 + byte
    undecodable: (
        bool  # it held such bytes (or a U+FFFD, what another tool made of them)
    )
    cut: bool  # longer than the stream's `max_line` characters: the rest of it was dropped


# What a stream's text holds where its bytes could not be decoded: U+DC00 + the byte (for UTF-8
# exactly Python's surrogateescape, so a path holding them is had back byte for byte with
# os.fsencode), or a U+FFFD another tool put there. Never text a program printed.
UNDECODABLE = re.compile("[\udc00-\udcff\ufffd]")
_UNDECODABLE_HANDLER = "jaxfix-undecodable"


def _undecodable_bytes(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join(chr(0xDC00 + byte) for byte in bad), error.end


codecs.register_error(_UNDECODABLE_HANDLER, _undecodable_bytes)


# Longest first: UTF-32 LE's BOM starts with UTF-16 LE's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CHUNK = 1 << 16


def _stream_encoding(head: bytes) -> tuple[str, int]:
    """The encoding a stream's first bytes show, and the length of its BOM. Without a BOM,
    ASCII text with a NUL after (or before) nearly every byte is UTF-16 (Windows tools);
    anything else is read as UTF-8."""
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding, len(bom)
    sample = head[:4096]
    pairs = len(sample) // 2
    if pairs >= 8:
        even, odd = (
            sample[0 : pairs * 2 : 2].count(0),
            sample[1 : pairs * 2 : 2].count(0),
        )
        if odd >= 0.9 * pairs and even <= 0.1 * pairs:
            return "utf-16-le", 0
        if even >= 0.9 * pairs and odd <= 0.1 * pairs:
            return "utf-16-be", 0
    return "utf-8", 0


class TextStream:
    """The lines of a text stream, read a chunk at a time so that memory does not grow with
    its size: at most `limit` bytes (ReadError past them, `bound` naming the setting), lines
    broken at \\n, \\r\\n and \\r (universal newlines), each kept to `max_line` characters.
    Bytes the encoding cannot decode are kept, as `UNDECODABLE` marks, in the line they are in
    (the rest of it is text as usual). `encoding` is known once the first line is read."""

    def __init__(
        self, handle: BinaryIO, *, limit: int, bound: str, max_line: int
    ) -> None:
        self.handle, self.limit, self.bound, self.max_line = (
            handle,
            limit,
            bound,
            max_line,
        )
        self.encoding = "utf-8"
        self._read = 0

    def _chunk(self) -> bytes:
        try:
            data = self.handle.read(_CHUNK)
        except OSError as error:
            raise ReadError(f"cannot read: {error.strerror or error}") from None
        self._read += len(data)
        if self._read > self.limit:
            raise ReadError(
                f"input is larger than {self.bound} ({self.limit} bytes); not read"
            )
        return data

    def __iter__(self) -> Iterator[TextLine]:
        data = self._chunk()
        self.encoding, skip = _stream_encoding(data)
        data = data[skip:]
        decoder = codecs.getincrementaldecoder(self.encoding)(
            errors=_UNDECODABLE_HANDLER
        )
        number, line, cut, held_cr = 0, "", False, False
        while True:
            final = not data
            text = ("\r" if held_cr else "") + decoder.decode(data, final=final)
            held_cr = not final and text.endswith(
                "\r"
            )  # a \r\n may be split between chunks
            if held_cr:
                text = text[:-1]
            start = 0
            for match in _LINE_BREAK.finditer(text):
                number += 1
                line, cut = self._extend(line, cut, text[start : match.start()])
                yield TextLine(number, line, bool(UNDECODABLE.search(line)), cut)
                line, cut, start = "", False, match.end()
            line, cut = self._extend(line, cut, text[start:])
            if final:
                break
            data = self._chunk()
        if line or cut:
            yield TextLine(number + 1, line, bool(UNDECODABLE.search(line)), cut)

    def _extend(self, line: str, cut: bool, more: str) -> tuple[str, bool]:
        if cut or len(line) + len(more) <= self.max_line:
            return (line, cut) if cut else (line + more, False)
        return line + more[: self.max_line - len(line)], True


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    )
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


_ANNOUNCE: ContextVar[Callable[[FileResult], None] | None] = ContextVar(
    "announce_writes", default=None
)


@contextmanager
def announced_writes(announce: Callable[[FileResult], None]) -> Iterator[None]:
    """In the block (in this thread), `announce(result)` runs before each fix is written: what
    `jaxfix migrate` journals, so that a process killed right after leaves a record of it."""
    token = _ANNOUNCE.set(announce)
    try:
        yield
    finally:
        _ANNOUNCE.reset(token)


def write_fix(
    result: FileResult,
    late_checks: list[LateCheck] | None = None,
    within: tuple[str, ...] = (),
) -> FileResult:
    """Write `result.fixed` over the file if it still holds `result.source`; say how it went.

    With `late_checks`, the caller confirms the write later (see safe_write.confirm_writes);
    with `within` (safe_write.real_roots), the file must still resolve inside those roots.
    """
    if result.fixed is None or result.error is not None:
        return result
    announce = _ANNOUNCE.get()
    if announce is not None:
        announce(result)  # raising: nothing written
    try:
        replace_source(
            result.path,
            result.fixed,
            expected=result.source,
            late_checks=late_checks,
            within=within,
        )
    except WriteError as error:
        return replace(result, error=f"cannot write: {error}")
    return replace(result, written=True)


def undo_written(
    results: list[FileResult], undone: dict[Path, str]
) -> list[FileResult]:
    """Results whose write a late check undid become errors."""
    return [
        replace(r, written=False, error=f"cannot write: {undone[r.path]}")
        if r.path in undone
        else r
        for r in results
    ]
