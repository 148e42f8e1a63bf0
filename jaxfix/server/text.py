"""Positions and edits as LSP counts them: lines split at \\n, \\r\\n and \\r (as Python does),
columns in the negotiated encoding's code units (UTF-16 unless the client chose otherwise)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from jaxfix.sources.text import split_lines

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(text: str, encoding: str = UTF16) -> int:
    """How many code units of `encoding` the text takes."""
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == UTF32:
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def characters(text: str, count: int, encoding: str = UTF16) -> int:
    """How many characters of `text` its first `count` code units hold (inside one: up to it)."""
    if encoding == UTF32:
        return min(count, len(text))
    seen = 0
    for index, character in enumerate(text):
        seen += units(character, encoding)
        if seen > count:
            return index
    return len(text)


def _content(line: str) -> str:
    return line.rstrip("\r\n")


@dataclass(frozen=True)
class Position:
    """0-based line and column in code units, as LSP's Position."""

    line: int
    character: int


@dataclass(frozen=True)
class Edit:
    start: Position
    end: Position
    new_text: str


class Lines:
    """A document's lines, to turn jaxfix's (1-based line, 1-based character column) into LSP's."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.lines = split_lines(text)
        self.encoding = encoding

    def position(self, line: int, column: int) -> Position:
        """jaxfix's 1-based line and character column as an LSP position (clamped to the text)."""
        if line > len(self.lines):
            return self.end()
        text = _content(self.lines[line - 1])
        return Position(line - 1, units(text[: max(column - 1, 0)], self.encoding))

    def column(self, position: Position) -> tuple[int, int]:
        """An LSP position as jaxfix's 1-based line and character column."""
        if position.line >= len(self.lines):
            return len(self.lines) + 1, 1
        text = _content(self.lines[position.line])
        return position.line + 1, characters(
            text, position.character, self.encoding
        ) + 1

    def end(self) -> Position:
        """Just past the last character."""
        if not self.lines:
            return Position(0, 0)
        last = self.lines[-1]
        if last != _content(last):
            return Position(len(self.lines), 0)
        return Position(len(self.lines) - 1, units(last, self.encoding))

    def start_of(self, index: int) -> Position:
        """The start of 0-based line `index` (or the end of the text past the last line)."""
        return Position(index, 0) if index < len(self.lines) else self.end()


def edits(old: str, new: str, encoding: str = UTF16) -> list[Edit]:
    """Minimal edits from `old` to `new`: the lines difflib finds changed, each block trimmed to
    the characters that differ (so a one-word fix does not replace its line)."""
    document = Lines(old, encoding)
    old_lines, new_lines = document.lines, split_lines(new)
    found = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before, after = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
        prefix = 0
        while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
            prefix += 1
        suffix = 0
        while (
            suffix < min(len(before), len(after)) - prefix
            and before[-1 - suffix] == after[-1 - suffix]
        ):
            suffix += 1
        # Never split a \r\n pair: an edit ending between them would leave a lone \r.
        while (
            prefix
            and before[prefix - 1] == "\r"
            and before[prefix : prefix + 1] == "\n"
        ):
            prefix -= 1
        while (
            suffix
            and before[len(before) - suffix - 1 : len(before) - suffix] == "\r"
            and before[len(before) - suffix] == "\n"
        ):
            suffix -= 1
        start = _offset_position(i1, before, prefix, encoding)
        end = _offset_position(i1, before, len(before) - suffix, encoding)
        found.append(Edit(start, end, after[prefix : len(after) - suffix]))
    return found


def _offset_position(first: int, block: str, offset: int, encoding: str) -> Position:
    """The position of character `offset` of `block`, the text from line `first` on."""
    line, start = first, 0
    for text in split_lines(block):
        if offset < start + len(text) or (
            offset == start + len(text) and text == _content(text)
        ):
            return Position(line, units(text[: offset - start], encoding))
        start += len(text)
        line += 1
    return Position(line, 0)  # after the block's last line break
