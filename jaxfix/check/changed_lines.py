"""Changed-lines mode (`--diff-base REV`): the lines of each file that changed since REV.

A review bot should speak only about a pull request's own lines, so the engine drops every
report whose node touches none of them (and does not fix it). The lines come from
`git diff REV` of the working tree; untracked Python files and notebooks count as changed throughout (a
notebook's changed lines are lines of its JSON text; jaxfix/sources/notebook.py maps them to cells).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
from pathlib import Path

from jaxfix.ground.escaping import printable
from jaxfix.settings.options import DEFAULT_MAX_FILE_SIZE
from jaxfix.sources.file_io import ReadError, read_regular

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")
_ESCAPE = re.compile(rb"\\([0-7]{3}|.)")
_ESCAPES = {
    b"a": b"\a",
    b"b": b"\b",
    b"f": b"\f",
    b"n": b"\n",
    b"r": b"\r",
    b"t": b"\t",
    b"v": b"\v",
}
# Settings that would change what `git diff` prints; the flags after them pin the rest.
_GIT = ("git", "-c", "core.quotePath=false", "-c", "diff.noprefix=false")
_DIFF = (
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--no-relative",
    "--unified=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


class ChangedLinesError(Exception):
    """Changed lines cannot be known: not in a git repository, unknown revision, no git."""


def _git(args: tuple[str, ...], cwd: Path) -> str:
    done = subprocess.run([*_GIT, *args], cwd=cwd, capture_output=True)
    if done.returncode != 0:
        message = os.fsdecode(done.stderr).strip().splitlines()
        reason = printable(message[0]) if message else f"exit code {done.returncode}"
        raise ChangedLinesError(f"git {args[0]} failed: {reason}")
    return os.fsdecode(done.stdout)


def _path_of(header: str) -> str:
    """The path in a `+++ ` line: git C-quotes unusual names and ends names with spaces in a tab.

    The tab goes first: a quoted name with a space ends `"...\t`, and a name git leaves
    unquoted never holds a tab of its own.
    """
    header = header.removesuffix("\t")
    if not (len(header) >= 2 and header[0] == header[-1] == '"'):
        return header
    raw = os.fsencode(header[1:-1])
    return os.fsdecode(
        _ESCAPE.sub(
            lambda m: (
                bytes([int(m[1], 8)]) if len(m[1]) == 3 else _ESCAPES.get(m[1], m[1])
            ),
            raw,
        )
    )


def parse_diff(diff: str) -> dict[str, frozenset[int]]:
    """New-side line numbers of a `git diff --unified=0` per `b/` path (deleted files left out)."""
    lines: dict[str, set[int]] = {}
    current: set[int] | None = None
    in_header = False
    for line in diff.split("\n"):
        if line.startswith("diff --git "):
            current, in_header = None, True
        elif in_header and line.startswith("+++ "):
            target = _path_of(line[4:])
            current = (
                None if target == "/dev/null" else lines.setdefault(target[2:], set())
            )
        elif line.startswith("@@ "):
            in_header = False
            match = _HUNK.match(line)
            if match and current is not None:
                start, count = int(match["start"]), int(match["count"] or 1)
                current.update(range(start, start + count))
    return {path: frozenset(numbers) for path, numbers in lines.items()}


def _line_count(path: Path) -> int:
    try:  # a file git names may be a symlink to /dev/zero
        return read_regular(path, DEFAULT_MAX_FILE_SIZE).count(b"\n") + 1
    except ReadError:
        return 0


def changed_lines(rev: str, cwd: Path | None = None) -> dict[Path, frozenset[int]]:
    """Resolved path -> 1-based lines changed since `rev`, for the repository around `cwd`."""
    here = cwd or Path.cwd()
    if not rev or rev.startswith(
        "-"
    ):  # git would read it as an option (`--output=FILE` writes)
        raise ChangedLinesError(f"--diff-base {printable(rev)}: not a git revision")
    if shutil.which("git") is None:
        raise ChangedLinesError(
            "--diff-base needs git, which is not installed (or not on PATH)"
        )
    try:
        root = Path(_git(("rev-parse", "--show-toplevel"), here).strip())
    except ChangedLinesError:
        raise ChangedLinesError(
            f"--diff-base needs a git repository, and {here} is not inside one"
        ) from None
    try:
        diff = _git((*_DIFF, rev, "--"), root)
    except ChangedLinesError as error:
        raise ChangedLinesError(f"--diff-base {printable(rev)}: {error}") from None
    changed = {
        (root / path).resolve(): numbers
        for path, numbers in parse_diff(diff).items()
        if numbers
    }
    for name in _git(("ls-files", "--others", "--exclude-standard", "-z"), root).split(
        "\0"
    ):
        if name.endswith((".py", ".pyi", ".ipynb")):
            path = (root / name).resolve()
            changed[path] = frozenset(range(1, _line_count(path) + 1))
    return changed


def carry_lines(
    lines: frozenset[int], old: list[str], new: list[str]
) -> frozenset[int]:
    """The changed lines after a fix pass rewrote `old` into `new`: unchanged lines move with the
    text, and every line the pass wrote counts as changed (only changed lines were fixed)."""
    carried: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            carried.update(j1 + 1 + k for k in range(i2 - i1) if i1 + 1 + k in lines)
        else:
            carried.update(range(j1 + 1, j2 + 1))
    return frozenset(carried)
