"""`--add-noqa`: a suppression comment on the line of every current finding, for adopting jaxfix
on a large code base (ruff's `--add-noqa`), and nothing else changed.

The comment is jaxfix's own, `# jaxfix: ignore[CODE]` (jaxfix/check/suppression.py): an existing one
on the line gets the code added to its list. It goes at the end of the finding's first line,
else of its last (the two lines the engine reads suppressions from). Each insertion is kept only
if the module's `ast` is unchanged by it, so a comment never lands inside a string or after a
line continuation; a finding no line can carry is returned, for the caller to say so.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from jaxfix.ground.diagnostics import Diagnostic

_OURS = re.compile(rb"#\s*jaxfix:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)


def with_suppressions(
    source: bytes, diagnostics: Sequence[Diagnostic]
) -> tuple[bytes, int, list[Diagnostic]]:
    """(the source with the comments, how many lines got one, the findings that got none)."""
    lines = source.splitlines(
        keepends=True
    )  # bytes split as Python counts lines: \n, \r\n, \r
    try:
        expected = ast.dump(ast.parse(source))
    except (SyntaxError, ValueError):
        return source, 0, list(diagnostics)
    touched: set[int] = set()
    left = []
    for diagnostic in sorted(diagnostics, key=lambda d: (d.start.line, d.code)):
        for number in dict.fromkeys((diagnostic.start.line, diagnostic.end.line)):
            if not 1 <= number <= len(lines):
                continue
            candidate = _commented(lines[number - 1], diagnostic.code)
            if candidate == lines[number - 1]:
                break  # the line already names the code
            trial = b"".join([*lines[: number - 1], candidate, *lines[number:]])
            if _same_tree(trial, expected):
                lines[number - 1] = candidate
                touched.add(number)
                break
        else:
            left.append(diagnostic)
    return b"".join(lines), len(touched), left


def _commented(line: bytes, code: str) -> bytes:
    body = line.rstrip(b"\r\n")
    ending = line[len(body) :]
    ours = _OURS.search(body)
    if ours is not None:
        codes = [
            c.strip()
            for c in ours["codes"].decode("ascii", "replace").split(",")
            if c.strip()
        ]
        if code in codes:
            return line
        merged = f"# jaxfix: ignore[{', '.join([*codes, code])}]".encode()
        return body[: ours.start()] + merged + body[ours.end() :] + ending
    return body + f"  # jaxfix: ignore[{code}]".encode() + ending


def _same_tree(source: bytes, expected: str) -> bool:
    try:
        return ast.dump(ast.parse(source)) == expected
    except (SyntaxError, ValueError):
        return False
