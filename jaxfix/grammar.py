"""Code written for a newer Python than the one running jaxfix: which Python it needs.

The new engine reads files with Python's own `ast`, which knows only the running Python's
grammar (3.11 for jaxfix's own environment): `class Tracer[T: Trace](...)` (PEP 695, Python 3.12)
is a SyntaxError there, yet it is not the user's error. Such a file gets one line saying which
Python it needs (`not_checked`), is otherwise left alone, and every answer that would read it
(an import of it, a caller in it) is Unknown. The version is named from the construct at the
place Python's parser stopped, when it is one of those below; otherwise "a newer Python".
"""

from __future__ import annotations

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
