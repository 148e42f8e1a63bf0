"""Source bytes as text: the encoding the file declares, and lines as Python ends them."""

from __future__ import annotations

import io
import re
import tokenize

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def decode(source: bytes) -> str:
    return source.decode(_declared_encoding(source))


def source_text(source: bytes) -> str:
    """Python source as text, in the encoding its coding cookie declares (PEP 263; UTF-8 by
    default, as `ast` reads it), bytes that do not decode kept as surrogates."""
    try:
        encoding = _declared_encoding(source)
        return source.decode(encoding, errors="surrogateescape")
    except (SyntaxError, LookupError):  # no such encoding, or a BOM that contradicts it
        return source.decode("utf-8", errors="surrogateescape")


def _declared_encoding(source: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return encoding


def split_lines(text: str) -> list[str]:
    """Lines with their endings; only \\n, \\r\\n and \\r end a line (as in Python source)."""
    return _LINE.findall(text)
