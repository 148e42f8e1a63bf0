"""Unified diffs of a file's old and new bytes, decoded with the file's own encoding."""

from __future__ import annotations

import difflib
import io
import re
import tokenize

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def decode(source: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(encoding)


def split_lines(text: str) -> list[str]:
    """Lines with their endings; only \\n, \\r\\n and \\r end a line (as in Python source)."""
    return _LINE.findall(text)


def unified_diff(display_path: str, old: bytes, new: bytes) -> str:
    """A diff `git apply` accepts: a/ and b/ prefixes, line endings kept as they are; for a
    notebook, a readable diff of its changed cells instead (as ruff shows them)."""
    if display_path.endswith(".ipynb"):
        from jaxfix.notebook import cell_diff

        return cell_diff(display_path, old, new)
    old_lines = split_lines(decode(old))
    new_lines = split_lines(decode(new))
    lines = difflib.unified_diff(old_lines, new_lines, f"a/{display_path}", f"b/{display_path}")
    out = []
    for line in lines:
        out.append(line)
        if not line.endswith(("\n", "\r")):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
