"""A logged site whose line has changed since the log: already fixed, or changed otherwise.

Already fixed means the file now holds what the rule's own fix makes of the logged line. That
is checked by doing it: put the logged line back in place of the text that may be its fix,
fix that one site with the log's evidence, and the result must be the file as it is now (and
the logged line must be gone from around its place: a line still there moved, it was not
fixed). A site whose line only moved, because the fixes of the file's other logged sites added
lines above it, is found where it is now. Any other change (an edit by hand, a line that moved
for another reason) is not explained, and the site stays "changed since the log".
"""

from __future__ import annotations

import difflib
import io
import tokenize
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.evidence.facts import Evidence, Facts
from jaxfix.sources.file_io import ReadError, read_regular, source_lines
from jaxfix.sources.text import split_lines

if TYPE_CHECKING:
    from jaxfix.check.run import Run

# How far a fix's text may lie from the logged line (lines other fixes added above it), how many
# lines one fix may take, and how many candidate places are tried (each is one engine run).
_REACH = 60
_MAX_FIX_LINES = 24
_MAX_TRIES = 4
_SIMILAR = 0.4
_MAX_ADDED_IMPORTS = 3  # lines a fix adds above everything else (`import jax`)


def _net_depth(text: str) -> int | None:
    """Brackets opened minus closed in `text` (code, not strings or comments); None if it does
    not tokenize up to its end."""
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
    except (
        tokenize.TokenError
    ):  # the statement continues on the next line: what was counted stands
        pass
    except (SyntaxError, ValueError):
        return None
    return depth


def _depths(lines: list[str]) -> list[int] | None:
    """The bracket depth at the start of each line of a module, and after its last line."""
    depths, depth = [0], 0
    for line in lines:
        change = _net_depth(line)
        if change is None:
            return None
        depth += change
        depths.append(depth)
    return depths


def _places(lines: list[str], logged: str, line: int) -> list[int]:
    """0-based lines where the logged line's fix may start, nearest the logged line first."""
    near = range(max(0, line - 1 - _REACH), min(len(lines), line + _REACH))
    similar = [
        index
        for index in near
        if lines[index].strip()
        and difflib.SequenceMatcher(None, logged, lines[index].strip()).quick_ratio()
        >= _SIMILAR
    ]
    return sorted(similar, key=lambda index: (abs(index - (line - 1)), index))[
        :_MAX_TRIES
    ]


def already_fixed(
    path: Path,
    code: str,
    line: int,
    logged: str,
    facts: Facts,
    log_line: int,
    run: Run,
) -> tuple[int, int] | None:
    """Where in `path` the rule's fix of the logged site now stands (its first line, how many
    lines it takes), or None when the file does not hold that fix (the site changed otherwise,
    or cannot be told)."""
    from jaxfix.check.engine import (
        check_file,  # imports libcst: only for a site that changed
    )

    options = run.options

    try:  # the file as Python reads it: its own encoding, its own line breaks
        now = read_regular(path, options.max_file_size, bound="max-file-size")
        encoding, _ = tokenize.detect_encoding(io.BytesIO(now).readline)
        text = now.decode(encoding)
    except (ReadError, SyntaxError, LookupError, UnicodeDecodeError):
        return None
    lines = split_lines(text)
    near = lines[max(0, line - 1 - _REACH) : line + _REACH]
    if any(other.strip() == logged.strip() for other in near):
        return None  # the code the log shows is still there (moved, not fixed): a fix elsewhere does not count
    depths = _depths(lines)
    wanted = _net_depth(logged)
    if depths is None or wanted is None:
        return None
    for start in _places(lines, logged, line):
        end = next(
            (
                end
                for end in range(start + 1, min(len(lines), start + _MAX_FIX_LINES) + 1)
                if depths[end] - depths[start] == wanted
            ),
            None,
        )
        if end is None:
            continue
        first = lines[start]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        newline = "\r\n" if lines[end - 1].endswith("\r\n") else "\n"
        try:
            before = "".join(
                [*lines[:start], indent + logged + newline, *lines[end:]]
            ).encode(encoding)
        except (
            UnicodeEncodeError
        ):  # the logged line holds what the file's encoding cannot
            return None
        evidence = Evidence(code, start + 1, (log_line,), (facts,))
        result = check_file(
            run.with_options(unsafe_fixes=True), path, before, evidence=(evidence,)
        )
        if result.error is None and result.fixed == now:
            return start + 1, end - start
    return None


def moved_by_fixes(
    path: Path, line: int, logged: str, fixed: list[tuple[int, int]], max_file_size: int
) -> int | None:
    """The line the logged line stands at now, when what moved it is the fixes of other logged
    sites of the file (`fixed`: where each stands, as `already_fixed` says) and the imports they
    added above it; None when that does not explain where it is (or it is not there at all)."""
    try:
        lines = source_lines(path, max_file_size)
    except ReadError:
        return None
    regions = dict(fixed)
    before_fixes: list[
        str | None
    ] = []  # the file with each fix put back to the one line it was
    now: list[int] = []
    index = 0
    while index < len(lines):
        before_fixes.append(None if index + 1 in regions else lines[index])
        now.append(index + 1)
        index += regions.get(index + 1, 1)
    found = [
        now[at - 1]
        for at in range(line, line + _MAX_ADDED_IMPORTS + 1)
        if 0 < at <= len(before_fixes)
        and (before_fixes[at - 1] or "").strip() == logged.strip()
    ]
    return found[0] if len(found) == 1 else None
