"""The bytes a fix parses with LibCST: two layouts Python reads but LibCST does not reproduce,
normalised for the parse and put back, byte for byte, after the fix.

- A line ended by a lone `\\r` (a CR-only file): LibCST drops the file's final `\\r`. Such an
  end is given to LibCST as `\\n`, and made `\\r` again.
- A form feed in a line's indentation: Python's tokenizer starts counting the indentation
  again after it, LibCST's does not (it drops the form feed, or fails with "no matching outer
  block for dedent"). The indentation up to its last form feed is left out for LibCST, and put
  back before the line.

Lines and their count never change, so positions only move on a line whose indentation was
cut (`column`). Put back (`restore`): each line the fix left as it was is the original line;
a line it rewrote gets the original line's cut indentation (when it still starts as that line
did) and line end; a line it added ends as most of the file's lines do.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_LINE = re.compile(rb"([^\r\n]*)(\r\n|\r|\n|$)")
_CUT = re.compile(rb"[ \t\f]*\f")  # the indentation up to its last form feed
_INDENT = re.compile(rb"[ \t]*")


@dataclass(frozen=True)
class _Line:
    cut: bytes  # the indentation left out for LibCST (up to a form feed), or b""
    body: bytes  # the rest, without the line end
    end: bytes  # b"\r\n", b"\r", b"\n" or b"" (the last line)


@dataclass(frozen=True)
class CstSource:
    """A source as LibCST is given it (`normal`), and how to put a fixed one back."""

    original: bytes
    normal: bytes
    lines: tuple[_Line, ...]

    def column(self, line: int, column: int) -> int:
        """A column of the original `line` (1-based), in the normalised source."""
        if self.normal is self.original or line > len(self.lines):
            return column
        return column - len(self.lines[line - 1].cut)

    def original_column(self, line: int, column: int) -> int:
        """A column of the normalised `line` (1-based), in the original source."""
        if self.normal is self.original or line > len(self.lines):
            return column
        return column + len(self.lines[line - 1].cut)

    def restore(self, fixed: bytes) -> bytes:
        """The fixed normalised source in the original's layout."""
        if self.normal is self.original:
            return fixed
        if fixed == self.normal:
            return self.original
        import difflib  # only for these rare files

        old = [line.body + _normal_end(line) for line in self.lines]
        new = _split(fixed)
        added_end = Counter(line.end for line in self.lines if line.end).most_common(1)
        usual = added_end[0][0] if added_end else b"\n"
        out: list[bytes] = []
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                out.extend(_original(line) for line in self.lines[i1:i2])
                continue
            for k, text in enumerate(new[j1:j2]):
                body, end = _LINE.match(text).groups()  # type: ignore[union-attr]
                if i1 + k < i2:
                    was = self.lines[i1 + k]
                    if was.cut and _indent(body) == _indent(was.body):
                        body = was.cut + body
                    if end == b"\n" and was.end == b"\r":
                        end = b"\r"
                elif end == b"\n" and usual == b"\r":
                    end = b"\r"
                out.append(body + end)
        return b"".join(out)


def for_libcst(source: bytes) -> CstSource:
    """`source` with its lone-`\\r` line ends and form-feed indentation normalised (the same
    bytes, not copied, when it has neither: the common case costs two searches)."""
    if b"\f" not in source and not re.search(rb"\r(?!\n)", source):
        return CstSource(source, source, ())
    lines = []
    for text in _split(source):
        body, end = _LINE.match(text).groups()  # type: ignore[union-attr]
        cut = _CUT.match(body)
        lines.append(
            _Line(cut.group() if cut else b"", body[cut.end() :] if cut else body, end)
        )
    normal = b"".join(line.body + _normal_end(line) for line in lines)
    return CstSource(source, normal, tuple(lines))


def _split(source: bytes) -> list[bytes]:
    return [m.group() for m in _LINE.finditer(source) if m.group()]


def _normal_end(line: _Line) -> bytes:
    return b"\n" if line.end == b"\r" else line.end


def _original(line: _Line) -> bytes:
    return line.cut + line.body + line.end


def _indent(body: bytes) -> bytes:
    return _INDENT.match(body).group()  # type: ignore[union-attr]
