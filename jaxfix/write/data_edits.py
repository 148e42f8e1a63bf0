"""The fixes that change a data file (a JSON config's entry, jaxfix/write/json_entry.py), written
after the Python files with the same safe write (jaxfix/write/safe_write.py).

Every fix's edits of one file are applied together over the bytes the fixes were made from (a
file whose SHA-256 changed since is left as it is); an edit overlapping another is left. A fix
whose edit is not written says so: its diagnostic is no longer applied and its message ends with
why, one line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from jaxfix.ground.diagnostics import DataEdit, Diagnostic, FileResult
from jaxfix.sources.paths import display_path
from jaxfix.write.safe_write import WriteError, replace_source, resolves_within

_MAX_BYTES = 1 << 20


def refuse_conflicts(results: list[FileResult]) -> list[FileResult]:
    """`results` with every fix whose edit of a file overlaps another fix's different edit
    there made report-only, each naming the other's place: two errors that want one value
    set two ways get neither (the same edit wanted twice is made once)."""
    owners: dict[DataEdit, list[tuple[Path, Diagnostic]]] = {}
    for result in results:
        for diagnostic in result.diagnostics:
            if diagnostic.applied and result.error is None:
                for edit in diagnostic.data_edits:
                    owners.setdefault(edit, []).append((result.path, diagnostic))
    conflicts: dict[Diagnostic, tuple[Path, list[str]]] = {}
    edits = sorted(owners, key=lambda e: (str(e.path), e.span, e.text))
    for n, edit in enumerate(edits):
        for other in edits[n + 1 :]:
            if other.path != edit.path or not _overlap(edit, other):
                continue
            for mine, theirs in ((edit, other), (other, edit)):
                for _, diagnostic in owners[mine]:
                    conflicts.setdefault(diagnostic, (edit.path, []))[1].extend(
                        f"{d.code} at {display_path(p)}:{d.start.line}"
                        for p, d in owners[theirs]
                    )
    if not conflicts:
        return results
    return [
        replace(
            result,
            diagnostics=tuple(
                _refused(d, *conflicts[d]) if d in conflicts else d
                for d in result.diagnostics
            ),
        )
        for result in results
    ]


def _refused(diagnostic: Diagnostic, path: Path, others: list[str]) -> Diagnostic:
    """`diagnostic` report-only: the fixes of `others` change its place of `path` another way."""
    named = ", ".join(dict.fromkeys(others))
    return replace(
        diagnostic,
        applied=False,
        withheld=True,
        message=f"{diagnostic.message} (not written: the fix of {named} changes the "
        f"same place of {path.name} another way)",
    )


def refuse_unwritable(
    results: list[FileResult], within: tuple[str, ...]
) -> list[FileResult]:
    """`results` as a write within `within` leaves them, before it: fixes that change one
    place two ways (`refuse_conflicts`) and fixes of files outside it (`refuse_outside`)
    refused. The command line's runs and previews and the language server's fixes ask this."""
    return refuse_outside(refuse_conflicts(results), within)


def refuse_outside(
    results: list[FileResult], within: tuple[str, ...], where: str = "the project"
) -> list[FileResult]:
    """`results` with every fix whose edit is of a file that does not resolve into `within`
    (`real_roots`, which `where` names) not written, as the write would leave it: a
    preview (`--diff`, `--dry-run`, JSON, the language server) shows what a write does."""
    failed = {
        edit: f"{edit.path.name} is outside {where}: not written"
        for edits in _by_file(results).values()
        for edit in edits
        if not resolves_within(edit.path, within)
    }
    return [_marked(result, failed) for result in results]


def write_data_edits(
    results: list[FileResult], within: tuple[str, ...] = ()
) -> list[FileResult]:
    """`results` with each applied data edit written, or its diagnostic marked not written."""
    by_file = _by_file(results)
    if not by_file:
        return results
    failed: dict[DataEdit, str] = {}
    for path, edits in by_file.items():
        failed.update(_write_file(path, edits, within))
    return [_marked(result, failed) for result in results]


@dataclass(frozen=True)
class DataDiff:
    """A data file as the applied fixes' edits leave it: `old`, the bytes they were made
    from, `new`, with the edits (what `--diff` and `--dry-run` show, and repair's rounds)."""

    path: Path
    old: bytes
    new: bytes


def data_diffs(results: list[FileResult]) -> list[DataDiff]:
    """Each data file the applied fixes of `results` change, with the change they make now
    (nothing written); a file that cannot be read, changed since, or whose edits all overlap
    others, is left out (its diagnostic says why when it is written)."""
    found = []
    for path, edits in sorted(_by_file(results).items()):
        applied = _applied(path, edits)
        if isinstance(applied, tuple):
            data, new, _ = applied
            if new != data:
                found.append(DataDiff(path, data, new))
    return found


def _by_file(results: list[FileResult]) -> dict[Path, list[DataEdit]]:
    by_file: dict[Path, list[DataEdit]] = {}
    for result in results:
        for diagnostic in result.diagnostics:
            if diagnostic.applied and result.error is None:
                for edit in diagnostic.data_edits:
                    by_file.setdefault(edit.path, []).append(edit)
    return by_file


def _applied(
    path: Path, edits: list[DataEdit]
) -> tuple[bytes, bytes, dict[DataEdit, str]] | dict[DataEdit, str]:
    """The file's bytes, the bytes with the edits that can be made, and the edits left with
    why; or, when none can be made, those."""
    import os

    from jaxfix.sources.file_io import ReadError, read_regular

    if ".git" in Path(os.path.realpath(path)).parts:
        return {e: f"{path.name} is in a .git folder: not written" for e in edits}
    try:
        data = read_regular(path, _MAX_BYTES, bound="1 MiB")
    except ReadError as error:
        return {e: f"cannot read {path.name}: {error}" for e in edits}
    digest = hashlib.sha256(data).hexdigest()
    left = {
        e: f"{path.name} changed since the run: not written"
        for e in edits
        if e.digest != digest
    }
    taken: list[DataEdit] = []
    for edit in sorted(
        dict.fromkeys(e for e in edits if e not in left), key=lambda e: (e.span, e.text)
    ):
        if any(_overlap(edit, t) for t in taken):
            left[edit] = (
                f"another fix changes the same entry of {path.name}: not written"
            )
            continue
        taken.append(edit)
    if not taken:
        return left
    new = data
    for edit in sorted(taken, key=lambda e: e.span, reverse=True):
        new = new[: edit.span[0]] + edit.text + new[edit.span[1] :]
    return data, new, left


def _write_file(
    path: Path,
    edits: list[DataEdit],
    within: tuple[str, ...],
) -> dict[DataEdit, str]:
    """The edits of `path` that were not written, each with why. A file that resolves into a
    `.git` folder now is never written, whatever the edit was checked against before."""
    applied = _applied(path, edits)
    if not isinstance(applied, tuple):
        return applied
    data, new, left = applied
    taken = [e for e in edits if e not in left]
    try:
        replace_source(path, new, expected=data, within=within)
    except WriteError as error:
        left.update({e: f"cannot write {path.name}: {error}" for e in taken})
    return left


def _overlap(a: DataEdit, b: DataEdit) -> bool:
    return a.span[0] < b.span[1] and b.span[0] < a.span[1]


def _marked(result: FileResult, failed: dict[DataEdit, str]) -> FileResult:
    if not failed or not any(
        e in failed for d in result.diagnostics for e in d.data_edits
    ):
        return result
    return replace(
        result,
        diagnostics=tuple(_not_written(d, failed) for d in result.diagnostics),
    )


def _not_written(diagnostic: Diagnostic, failed: dict[DataEdit, str]) -> Diagnostic:
    why = [failed[e] for e in diagnostic.data_edits if e in failed]
    if not why or not diagnostic.applied:
        return diagnostic
    return replace(
        diagnostic,
        applied=False,
        withheld=True,
        message=f"{diagnostic.message} ({why[0]})",
    )
