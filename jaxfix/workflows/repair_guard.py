"""`jaxfix repair`'s guard: a fix after which the next run raises a new error inside a
statement that fix wrote is undone.

A round's written fixes are kept as `WrittenFix`es: the file as it was and as jaxfix wrote it,
and the statements the fix changed (the header of a compound statement: a `with` line, not its
body). The next run's records say which of the tree's lines the run was inside when it raised
(its frames, and the statements that entered the mesh contexts the error left: see
jaxfix/evidence/records.py `_inside`). A new error inside a changed statement was brought by the
fix: the file is written back as it was, when it still holds what jaxfix wrote (an edit made
since is never overwritten). A data file's entry (JSON, YAML) is in no statement a run is
inside: its fix is implicated by a new error on a line of code that reads it (the line the fix
reports and its related lines: where the value is loaded, the factory that builds the mesh).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jaxfix.ground.diagnostics import FileResult
from jaxfix.sources.file_io import write_fix
from jaxfix.write.data_edits import DataDiff
from jaxfix.write.safe_write import LateCheck, confirm_writes

Lines = tuple[int, int]  # first and last line, 1-based


@dataclass(frozen=True)
class WrittenFix:
    """A file a round's fixes wrote: as it was, as written, the statements changed (lines of
    `after`)."""

    path: Path
    before: bytes
    after: bytes
    statements: tuple[Lines, ...]
    # For a data file (a JSON or YAML entry), the lines of code that read what it wrote: the
    # line each fix writing it reports, and its related lines (where the value is loaded,
    # the factory that builds the mesh from it).
    readers: tuple[tuple[Path, int], ...] = ()

    def holds(self, inside: Sequence[tuple[Path, int]]) -> tuple[Path, int] | None:
        """The first of `inside` (a run's lines) in a statement this fix changed, or on a
        line that reads the data it wrote."""
        readers = {(path.resolve(), line) for path, line in self.readers}
        return next(
            (
                (path, line)
                for path, line in inside
                if (
                    path.resolve() == self.path.resolve()
                    and any(first <= line <= last for first, last in self.statements)
                )
                or (path.resolve(), line) in readers
            ),
            None,
        )


def written_fixes(results: Sequence[FileResult]) -> list[WrittenFix]:
    """The source files `results` wrote, each with the statements its fix changed."""
    return [
        WrittenFix(r.path, r.source, r.fixed, changed_statements(r.source, r.fixed))
        for r in results
        if r.written and r.source is not None and r.fixed is not None
    ]


def written_data(
    results: Sequence[FileResult], diffs: Sequence[DataDiff]
) -> list[WrittenFix]:
    """The data files `diffs` wrote, each with the lines of code that read what it wrote:
    those the applied diagnostics editing it report, and their related lines."""
    found = []
    for diff in diffs:
        readers = tuple(
            dict.fromkeys(
                place
                for result in results
                for diagnostic in result.diagnostics
                if diagnostic.applied
                and any(e.path == diff.path for e in diagnostic.data_edits)
                for place in (
                    (result.path, diagnostic.start.line),
                    *(
                        (r.path or result.path, r.start.line)
                        for r in diagnostic.related
                    ),
                )
            )
        )
        if readers:
            found.append(WrittenFix(diff.path, diff.old, diff.new, (), readers))
    return found


def changed_statements(before: bytes, after: bytes) -> tuple[Lines, ...]:
    """The statements of `after` holding a line that differs from `before`: each simple
    statement's lines, a compound statement's header; a changed line no statement holds
    (a blank, a comment) counts as itself."""
    old, new = before.decode(errors="replace"), after.decode(errors="replace")
    changed = sorted(
        {
            line
            for tag, _, _, first, last in difflib.SequenceMatcher(
                None, old.splitlines(), new.splitlines(), autojunk=False
            ).get_opcodes()
            if tag in ("replace", "insert")
            for line in range(first + 1, last + 1)
        }
    )
    try:
        spans = _statement_spans(ast.parse(new))
    except (SyntaxError, ValueError):
        spans = []
    found: dict[Lines, None] = {}
    for line in changed:
        holding = [s for s in spans if s[0] <= line <= s[1]]
        found[min(holding, key=lambda s: s[1] - s[0]) if holding else (line, line)] = (
            None
        )
    return tuple(found)


def _statement_spans(tree: ast.AST) -> list[Lines]:
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            first = body[0]
            decorators = getattr(first, "decorator_list", [])
            start = min([first.lineno, *(d.lineno for d in decorators)])
            end = max(node.lineno, start - 1)  # the header only
        spans.append((node.lineno, end))
    return spans


def undo(fix: WrittenFix, within: tuple[str, ...]) -> str | None:
    """Write the file back as it was before the fix; None when done, else why not (it no
    longer holds what jaxfix wrote, or the write failed)."""
    late_checks: list[LateCheck] = []
    result = write_fix(
        FileResult(fix.path, source=fix.after, fixed=fix.before), late_checks, within
    )
    undone = confirm_writes(late_checks)
    if result.error is not None:
        return f"not undone: {result.error.removeprefix('cannot write: ')}"
    if fix.path in undone:
        return f"not undone: {undone[fix.path]}"
    return None
