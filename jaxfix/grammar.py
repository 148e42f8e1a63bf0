"""Code written for a newer Python than the one running jaxfix: which Python it needs.

The new engine reads files with Python's own `ast`, which knows only the running Python's
grammar (3.11 for jaxfix's own environment): `class Tracer[T: Trace](...)` (PEP 695, Python 3.12)
is a SyntaxError there, yet it is not the user's error. Such a file gets one line saying which
Python it needs (`not_checked`), is otherwise left alone, and every answer that would read it
(an import of it, a caller in it) is Unknown. The version is named from the construct at the
place Python's parser stopped, when it is one of those below; otherwise "a newer Python".
"""

from __future__ import annotations

import ast
import re
import sys

from jaxfix.diagnostics import Location

RUNNING = sys.version_info[:2]

# (version, what it is, the line's text from its start): the first construct that matches names
# the version. Matched on the line where the parser stopped only.
_CONSTRUCTS: tuple[tuple[tuple[int, int], str, re.Pattern[str]], ...] = (
    (
        (3, 12),
        "a generic class or function, PEP 695",
        re.compile(r"\s*(?:async\s+def|def|class)\s+\w+\s*\["),
    ),
    (
        (3, 12),
        "a `type` statement, PEP 695",
        re.compile(r"\s*type\s+\w+\s*[\[=]"),
    ),
    (
        (3, 14),
        "a template string, PEP 750",
        re.compile(r".*(?<![\w'\"])(?:[tT][rR]?|[rR][tT])['\"]"),
    ),
    (
        (3, 14),
        "`except` naming several exceptions without parentheses, PEP 758",
        re.compile(r"\s*except\*?\s+[^\s(:][^:]*,"),
    ),
)
_F_STRING = (3, 12), "an f-string nesting quotes, backslashes or comments: PEP 701"


class NewerGrammar(Exception):
    """A file in a newer Python's grammar: its one line (`not_checked`), where."""

    def __init__(self, message: str, where: Location) -> None:
        super().__init__(message)
        self.where = where


def needed_python(
    error: SyntaxError, source: bytes
) -> tuple[tuple[int, int], str] | None:
    """The Python whose grammar the code at `error` needs, and what the construct is, when it
    is newer than the running Python's; None when it is no construct known here."""
    lines = source.splitlines()
    number = error.lineno or 0
    text = (
        lines[number - 1].decode("utf-8", "replace") if 0 < number <= len(lines) else ""
    )
    found: tuple[tuple[int, int], str] | None = None
    if (error.msg or "").startswith("f-string"):
        found = _F_STRING
    else:
        for version, what, pattern in _CONSTRUCTS:
            if pattern.match(text):
                found = version, what
                break
    if found is None or found[0] <= RUNNING:
        return None
    return found


def not_checked(error: SyntaxError, source: bytes) -> tuple[str, Location]:
    """The one line for a file Python's parser rejects but that is valid in a newer Python
    (the caller has confirmed that, with LibCST: jaxfix/syntax.py)."""
    running = f"{RUNNING[0]}.{RUNNING[1]}"
    needed = needed_python(error, source)
    where = Location(error.lineno or 1, error.offset or 1)
    if needed is None:
        return (
            f"not checked: this file uses syntax newer than Python {running}'s, which "
            f"jaxfix runs on; run jaxfix with a newer Python to check it",
            where,
        )
    (major, minor), what = needed
    return (
        f"not checked: this file needs Python {major}.{minor} ({what}); jaxfix runs on "
        f"Python {running}, whose parser cannot read it: run jaxfix with Python "
        f"{major}.{minor} or newer to check it",
        where,
    )


_GENERIC = re.compile(rb"[ \t]*(?:async[ \t]+def|def|class)[ \t]+\w+[ \t]*(?=\[)")
_MAX_GENERICS = 64


def valid_without_generics(source: bytes, error: SyntaxError) -> bool:
    """Whether the code is valid once the type parameters of its generic classes and
    functions (PEP 695, where Python's parser stops) are blanked out, each list of them
    valid as a function's parameters: so it is valid in Python 3.12's grammar, found with
    Python's own parser (the caller then needs no LibCST parse to know it)."""
    code = bytearray(source)
    for _ in range(_MAX_GENERICS):
        start = _line_start(code, error.lineno or 0)
        found = _GENERIC.match(code, start) if start is not None else None
        if found is None:
            return False
        opening = found.end()
        closing = _closing_bracket(code, opening)
        if closing is None:
            return False
        params = bytes(code[opening + 1 : closing])
        try:
            ast.parse(b"def _(" + params.replace(b"\n", b" ") + b"): pass")
        except (SyntaxError, ValueError):
            return False
        for i in range(opening, closing + 1):
            if code[i] not in b"\r\n":
                code[i] = 0x20
        try:
            ast.parse(bytes(code))
        except SyntaxError as next_error:
            error = next_error
            continue
        except (ValueError, RecursionError, MemoryError):
            return False
        return True
    return False


def _line_start(code: bytearray, line: int) -> int | None:
    if line < 1:
        return None
    start = 0
    for _ in range(line - 1):
        start = code.find(b"\n", start) + 1
        if start == 0:
            return None
    return start


def _closing_bracket(code: bytearray, opening: int) -> int | None:
    """The `]` closing the `[` at `opening` (brackets and quoted strings nested in it)."""
    depth, i, quote = 0, opening, 0
    while i < len(code):
        byte = code[i]
        if quote:
            if byte == quote:
                quote = 0
            elif byte == 0x5C:  # a backslash escapes the next byte
                i += 1
        elif byte in b"\"'":
            quote = byte
        elif byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
            if depth == 0:
                return i if byte == 0x5D else None
        i += 1
    return None
