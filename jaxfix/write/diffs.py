"""Unified diffs of a file's old and new bytes, decoded with the file's own encoding."""

from __future__ import annotations

import io
import os
import re
import tokenize
from pathlib import Path

from jaxfix.ground.escaping import git_header
from jaxfix.sources.kinds import source_of


def unified_diff(display_path: str, old: bytes, new: bytes) -> bytes:
    """A diff `git apply` accepts: a/ and b/ prefixes, the name quoted as git quotes it (so a name
    holding a newline and a fake header names only its own file), the file's own bytes (its
    encoding and line endings as they are). Lines are split as git splits them: only \\n ends a
    line, so a \\r\\n keeps its \\r and a lone \\r stays inside its line. (Source encodings are
    ASCII-compatible.)
    A source with a diff of its own gives it instead: a notebook's changed cells, as ruff
    shows them (jaxfix/sources/source.py)."""
    own = source_of(Path(display_path), old).diff(display_path, new)
    if own is not None:
        return own.encode("utf-8", "surrogateescape")
    import difflib  # here: every run reads files through decode(), few print a diff

    lines = difflib.diff_bytes(
        difflib.unified_diff,
        _git_lines(old),
        _git_lines(new),
        *header_names(display_path),
    )
    out = []
    for line in lines:
        out.append(line)
        if not line.endswith(b"\n"):
            out.append(b"\n\\ No newline at end of file\n")
    return b"".join(out)


def header_names(display_path: str) -> tuple[bytes, bytes]:
    """What follows `--- ` and `+++ ` for this file: `a/` and `b/` before its name as bytes (an
    undecodable name gets its own bytes back), quoted as git quotes it."""
    path = os.fsencode(display_path)
    return git_header(b"a/" + path, b"b/" + path)


def unified_diff_text(display_path: str, old: bytes, new: bytes) -> str:
    """The same diff as text, for rendering and for documents that embed it."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(old).readline)
    return unified_diff(display_path, old, new).decode(encoding, "replace")


def _git_lines(data: bytes) -> list[bytes]:
    return (
        data.splitlines(keepends=True)
        if b"\r" not in data
        else re.findall(rb"[^\n]*\n|[^\n]+$", data)
    )
