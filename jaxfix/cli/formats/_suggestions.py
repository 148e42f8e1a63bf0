"""Review comments with suggested changes, cut from jaxfix's own fix of a file.

The line diff between the original and the fixed bytes is split into hunks, and each hunk goes
to the diagnostics whose node or fixed lines it touches; a hunk no diagnostic claims (an import
the fixes need) becomes a comment of its own. Hunks never overlap, so applying every suggestion
of a file to the original gives exactly jaxfix's fixed output.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jaxfix.ground.diagnostics import DataEdit, Diagnostic, FileResult
from jaxfix.sources.file_io import ReadError, read_regular
from jaxfix.sources.text import decode, split_lines

_MAX_DATA_BYTES = 1 << 20  # a data file larger than this gets no suggestion

_SIMILAR = (
    0.6  # difflib ratio above which a changed line is taken for an edit of the old one
)


@dataclass(frozen=True)
class Comment:
    """A comment on original lines `first`..`last` (1-based, inclusive).

    `replacement`, when present, replaces those lines: one or more new lines with their line
    breaks as in the fixed file. `diagnostics` is empty for a change that only serves the
    file's fixes.
    """

    first: int
    last: int
    diagnostics: tuple[Diagnostic, ...]
    replacement: tuple[str, ...] | None = None

    @property
    def text(self) -> str:
        """The replacement as one string without its final line break (rdjson, SARIF)."""
        assert self.replacement
        final_break = self.replacement[-1][len(self.lines[-1]) :]
        return "".join(self.replacement).removesuffix(final_break)

    @property
    def lines(self) -> list[str]:
        """The replacement lines without line breaks (a GitHub suggestion block)."""
        assert self.replacement is not None
        return [line.rstrip("\r\n") for line in self.replacement]


def _span(diagnostic: Diagnostic) -> tuple[int, int]:
    if diagnostic.fix_lines is None:
        return diagnostic.start.line, diagnostic.end.line
    return min(diagnostic.start.line, diagnostic.fix_lines[0]), max(
        diagnostic.end.line, diagnostic.fix_lines[1]
    )


def _owners(i1: int, i2: int, diagnostics: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Diagnostics whose lines overlap original lines i1+1..i2; an insertion (i1 == i2) also
    belongs to a diagnostic on the line just before or after it."""
    low, high = (i1 + 1, i2) if i2 > i1 else (i1, i1 + 1)
    return tuple(d for d in diagnostics if _span(d)[0] <= high and low <= _span(d)[1])


def _similar(a: str, b: str) -> bool:
    return difflib.SequenceMatcher(None, a, b).ratio() >= _SIMILAR


def _split(
    old: list[str], new: list[str], i1: int, i2: int, j1: int, j2: int
) -> Iterator[tuple[int, int, int, int]]:
    """Cut a replaced block into line pairs where old and new lines still look alike (from both
    ends), so fixes on neighbouring lines stay separate comments; the rest stays one region."""
    head: list[tuple[int, int, int, int]] = []
    while i1 < i2 and j1 < j2 and _similar(old[i1], new[j1]):
        head.append((i1, i1 + 1, j1, j1 + 1))
        i1, j1 = i1 + 1, j1 + 1
    tail: list[tuple[int, int, int, int]] = []
    while i1 < i2 and j1 < j2 and _similar(old[i2 - 1], new[j2 - 1]):
        tail.insert(0, (i2 - 1, i2, j2 - 1, j2))
        i2, j2 = i2 - 1, j2 - 1
    middle = [(i1, i2, j1, j2)] if i1 < i2 or j1 < j2 else []
    for region in (*head, *middle, *tail):
        if old[region[0] : region[1]] != new[region[2] : region[3]]:
            yield region


def _regions(old: list[str], new: list[str]) -> Iterator[tuple[int, int, int, int]]:
    """Changed regions of the line diff, 0-based and half-open."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            yield from _split(old, new, i1, i2, j1, j2)


def _hunks(
    old: list[str], new: list[str], applied: list[Diagnostic]
) -> Iterator[Comment]:
    merged: list[tuple[int, int, int, int, tuple[Diagnostic, ...]]] = []
    for i1, i2, j1, j2 in _regions(old, new):
        owners = _owners(i1, i2, applied)
        if (
            i1 == i2 or j1 == j2
        ):  # suggestions replace lines: a pure insertion or deletion takes a neighbour along
            i1, i2, j1, j2 = (
                (i1 - 1, i2, j1 - 1, j2) if i1 > 0 else (i1, i2 + 1, j1, j2 + 1)
            )
        last = merged[-1] if merged else None
        if last and (last[1] > i1 or (last[1] == i1 and last[4] == owners)):
            merged[-1] = (
                last[0],
                i2,
                last[2],
                j2,
                tuple(dict.fromkeys(last[4] + owners)),
            )
        else:
            merged.append((i1, i2, j1, j2, owners))
    for i1, i2, j1, j2, owners in merged:
        yield Comment(i1 + 1, i2, owners, tuple(new[j1:j2]))


def comments(
    result: FileResult, diagnostics: tuple[Diagnostic, ...], *, suggest: bool
) -> list[Comment]:
    """One comment per hunk of the fix (when `suggest`), plus one per diagnostic no hunk carries."""
    found: list[Comment] = []
    if suggest and result.source is not None and result.fixed is not None:
        old, new = split_lines(decode(result.source)), split_lines(decode(result.fixed))
        found.extend(_hunks(old, new, [d for d in diagnostics if d.applied]))
    carried = {d for c in found for d in c.diagnostics}
    found.extend(
        Comment(d.start.line, d.start.line, (d,))
        for d in diagnostics
        if d not in carried
    )
    return sorted(found, key=lambda c: (c.first, c.last, c.replacement is None))


def companion_note(comment: Comment, file_comments: list[Comment]) -> str:
    """For a fix's suggestion: where the changes it needs elsewhere (an import) are suggested."""
    lines = [
        c.first if c.first == c.last else f"{c.first}-{c.last}"
        for c in file_comments
        if not c.diagnostics and c.replacement is not None
    ]
    if comment.replacement is None or not comment.diagnostics or not lines:
        return ""
    return f"Apply together with the suggestion on line {', '.join(map(str, lines))}."


def companion_message(comment: Comment, diagnostics: tuple[Diagnostic, ...]) -> str:
    """What a hunk no diagnostic claims is for: usually an import the file's fixes need."""
    fixed = ", ".join(
        dict.fromkeys(
            f"{d.code} on line {d.start.line}" for d in diagnostics if d.applied
        )
    )
    imports = all(
        line.lstrip().startswith(("import ", "from "))
        for line in comment.lines
        if line.strip()
    )
    what = "Import needed" if imports else "Needed"
    return (
        f"{what} by jaxfix's fixes in this file ({fixed}): apply it together with them."
    )


@dataclass(frozen=True)
class OriginSuggestion:
    """A diagnostic's origin in a data file (a JSON config's entry its fix changes): the
    line there, what the diagnostic says of it, and (when `suggest` and its fix is applied)
    that line as the fix leaves it, without its line break."""

    path: Path
    line: int
    diagnostic: Diagnostic
    message: str
    replacement: str | None


def origin_suggestions(
    diagnostics: tuple[Diagnostic, ...], *, suggest: bool
) -> list[OriginSuggestion]:
    """One per line a diagnostic's data edits change, when the file still holds the bytes the
    fix was made from (else there is nothing exact to suggest)."""
    found: list[OriginSuggestion] = []
    for diagnostic in diagnostics:
        by_path: dict[Path, list[DataEdit]] = {}
        for edit in diagnostic.data_edits:
            by_path.setdefault(edit.path, []).append(edit)
        for path, edits in by_path.items():
            try:
                data = read_regular(path, _MAX_DATA_BYTES)
            except ReadError:
                continue
            if any(e.digest != hashlib.sha256(data).hexdigest() for e in edits):
                continue
            new = data
            for edit in sorted(edits, key=lambda e: e.span, reverse=True):
                new = new[: edit.span[0]] + edit.text + new[edit.span[1] :]
            new_lines = new.split(b"\n")
            for number in sorted({data.count(b"\n", 0, e.span[0]) + 1 for e in edits}):
                said = [
                    r.message
                    for r in diagnostic.related
                    if r.path == path and r.start.line == number
                ]
                found.append(
                    OriginSuggestion(
                        path,
                        number,
                        diagnostic,
                        said[0] if said else diagnostic.message,
                        new_lines[number - 1].decode("utf-8", "replace").rstrip("\r")
                        if suggest and diagnostic.applied
                        else None,
                    )
                )
    return found
