"""An entry of a JSON file, found by its keys with the byte span of each of its integers: what a
fix that resizes a mesh changes when the sizes are written in a config file the code loads.

Only the integer's bytes are replaced, so the rest of the file (its indentation, key order,
other entries, line ends) stays byte for byte. A file that is not JSON as `json.loads` reads it,
that names a key twice on the way (which one the code reads depends on the loader), or whose
entry is not a list of integers gives the reason instead.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_SPACE = re.compile(r"[ \t\n\r]*")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)(?![.eE0-9])")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Entry:
    """The entry's integers, each with its byte span in the file; `line` (1-based) and
    `column` (0-based, in characters) of where the entry starts, and its text as written."""

    values: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


class NotAnEntry(ValueError):
    """Why the keys do not lead to a list of integers jaxfix can change."""


def find_entry(data: bytes, keys: tuple[str | int, ...]) -> Entry:
    try:
        text = data.decode("utf-8")
        json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise NotAnEntry(f"it is not JSON ({str(error).splitlines()[0]})") from None
    at = _skip(text, 1 if text.startswith("\ufeff") else 0)
    for key in keys:
        at = _member(text, at, key)
    if not text.startswith("[", at):
        raise NotAnEntry(f"{_shown(keys)} is not a list")
    start, values, spans = at, [], []
    at = _skip(text, at + 1)
    while not text.startswith("]", at):
        match = _INTEGER.match(text, at)
        if match is None:
            raise NotAnEntry(f"{_shown(keys)} is not a list of integers")
        values.append(int(match.group()))
        spans.append((_byte(text, match.start()), _byte(text, match.end())))
        at = _skip(text, match.end())
        if text.startswith(",", at):
            at = _skip(text, at + 1)
    end = at + 1
    line, column = _place(text, start)
    end_line, end_column = _place(text, end)
    return Entry(
        tuple(values),
        tuple(spans),
        line,
        column,
        end_line,
        end_column,
        text[start:end],
    )


def replaced(data: bytes, span: tuple[int, int], value: int) -> bytes:
    """`data` with the integer at `span` replaced by `value`, every other byte kept."""
    return data[: span[0]] + str(value).encode() + data[span[1] :]


def _member(text: str, at: int, key: str | int) -> int:
    """Where the value of `key` starts in the object (a string key) or array (an index) at
    `at`; a key met twice is refused."""
    opening, closing = ("{", "}") if isinstance(key, str) else ("[", "]")
    if not text.startswith(opening, at):
        kind = "an object" if isinstance(key, str) else "a list"
        raise NotAnEntry(f"the value read with [{key!r}] is not {kind}")
    at = _skip(text, at + 1)
    found: int | None = None
    index = 0
    while not text.startswith(closing, at):
        if isinstance(key, str):
            name, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            at = _skip(text, _skip(text, at) + 1)  # past the colon
            hit = name == key
        else:
            hit = index == key
        if hit:
            if found is not None:
                raise NotAnEntry(f"the key {key!r} is written twice")
            found = at
        _, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
        index += 1
    if found is None:
        raise NotAnEntry(f"there is no entry [{key!r}]")
    return found


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _byte(text: str, at: int) -> int:
    return len(text[:at].encode("utf-8"))


def _place(text: str, at: int) -> tuple[int, int]:
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1)


def _shown(keys: tuple[str | int, ...]) -> str:
    return "".join(f"[{k!r}]" for k in keys) or "the file"
