"""`--from-log FILE`: the files and evidence a run takes from a log of tracebacks."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rich.console import Console
from rich.text import Text

from jaxfix.check.registry import codes_listed, selected_rules
from jaxfix.check.run import Run
from jaxfix.evidence.facts import Evidence, Facts
from jaxfix.fromlog.fixed import already_fixed, moved_by_fixes
from jaxfix.fromlog.reading import MAX_LOG_LINE, LogReading, read_log
from jaxfix.ground.escaping import printable
from jaxfix.settings.options import Options
from jaxfix.sources.discovery import discover
from jaxfix.sources.file_io import ReadError, TextStream, open_regular
from jaxfix.sources.paths import display_path


@dataclass(frozen=True)
class LogRun:
    """What a run takes from the log: the files to check (those its tracebacks raised in), the
    evidence for them (by resolved path), and what the summary counts."""

    files: list[Path]
    evidence: dict[Path, tuple[Evidence, ...]]
    errors: int  # tracebacks not used, each said on one line
    already_fixed: int  # sites whose line now holds the rule's fix


def evidence_run(log: str, paths: list[Path], run: Run, console: Console) -> LogRun:
    """A log that cannot be read (not a regular file, larger than max-log-size) is one error
    line, and the run checks nothing."""
    name, options = "<stdin>" if log == "-" else log, run.options
    found = discover(paths, options.exclude, options.all_includes)
    try:
        reading = _read(log, found.files, options)
    except ReadError as error:
        console.print(
            Text(printable(f"{name}: error: {error}"), style="red"), soft_wrap=True
        )
        return LogRun([], {}, 1, 0)
    errors = list(reading.errors)
    for note in reading.notes:
        console.print(
            Text(printable(f"{name}: {note}"), style="dim"), soft_wrap=True
        )  # paths from the log
    verdicts: dict[
        tuple[Path, str, int, str | None], tuple[int, int] | None
    ] = {}  # site -> where its fix stands
    for changed in reading.changed:
        site = (changed.local, changed.code, changed.line, changed.logged)
        if site not in verdicts:
            verdicts[site] = where = (
                None
                if changed.logged is None
                else already_fixed(
                    changed.local,
                    changed.code,
                    changed.line,
                    changed.logged,
                    changed.facts,
                    changed.log_line,
                    run,
                )
            )
            if where is not None:
                console.print(
                    Text(
                        printable(
                            f"{name}: log line {changed.log_line}: {changed.code} at {display_path(changed.local)}:{changed.line} "
                            f"is already fixed (line {where[0]} holds the rule's fix)"
                        ),
                        style="dim",
                    ),
                    soft_wrap=True,
                )
    fixes_in: dict[Path, list[tuple[int, int]]] = {}
    for site, where in verdicts.items():
        if where is not None:
            fixes_in.setdefault(site[0], []).append(where)
    # A site the fixes of the file's other logged sites moved (lines added above it): used where it is now.
    moved: dict[tuple[Path, str, int], tuple[list[int], list[Facts]]] = {}
    for changed in reading.changed:
        if (
            verdicts[(changed.local, changed.code, changed.line, changed.logged)]
            is not None
        ):
            continue
        now = None
        if changed.logged is not None and changed.local in fixes_in:
            now = moved_by_fixes(
                changed.local,
                changed.line,
                changed.logged,
                fixes_in[changed.local],
                options.max_file_size,
            )
        if now is None:
            errors.append(changed.error)
            continue
        log_lines, facts = moved.setdefault(
            (changed.local, changed.code, now), ([], [])
        )
        if not log_lines:
            console.print(
                Text(
                    printable(
                        f"{name}: log line {changed.log_line}: {changed.code} at {display_path(changed.local)}:{changed.line} "
                        f"is at line {now} now (the fixes applied since the log added lines above it)"
                    ),
                    style="dim",
                ),
                soft_wrap=True,
            )
        log_lines.append(changed.log_line)
        facts.append(changed.facts)
    found = dict(reading.evidence)
    for (local, code, line), (log_lines, facts) in sorted(
        moved.items(), key=lambda item: (item[0][0].as_posix(), item[0][2])
    ):
        found[local] = (
            *found.get(local, ()),
            Evidence(code, line, tuple(sorted(log_lines)), tuple(dict.fromkeys(facts))),
        )
    for error in errors:
        console.print(
            Text(printable(f"{name}: error: {error}"), style="red"), soft_wrap=True
        )  # paths from the log
    selected = {entry.code for entry in selected_rules(options)}
    for path, items in sorted(found.items()):
        for item in items:
            if (
                item.code not in selected
            ):  # else dropped unsaid: one the target leaves out (JAX014)
                console.print(
                    Text(
                        printable(
                            f"{name}: {item.where}: {item.code} at {display_path(path)}:{item.line} "
                            f"not used: {item.code} is not selected (--select {item.code}, or ALL)"
                        ),
                        style="dim",
                    ),
                    soft_wrap=True,
                )
    if not reading.occurrences:
        console.print(
            Text(
                f"{printable(name)}: no traceback of {codes_listed()} in the log: nothing to do",
                style="dim",
            ),
            soft_wrap=True,
        )
    evidence = {
        path.resolve(): tuple(sorted(items, key=lambda e: (e.line, e.code)))
        for path, items in found.items()
    }
    fixed = sum(1 for line in verdicts.values() if line is not None)
    return LogRun(sorted(found), evidence, len(errors), fixed)


def _read(log: str, files: list[Path], options: Options) -> LogReading:
    try:
        if log == "-":
            if sys.stdin is None or sys.stdin.closed:
                raise ReadError("cannot read: stdin is closed")
            return _read_stream(sys.stdin.buffer, files, options)
        with open_regular(
            log, limit=options.max_log_size, bound="max-log-size"
        ) as handle:
            return _read_stream(handle, files, options)
    except MemoryError:
        raise ReadError("ran out of memory reading it") from None


def _read_stream(handle: BinaryIO, files: list[Path], options: Options) -> LogReading:
    stream = TextStream(
        handle, limit=options.max_log_size, bound="max-log-size", max_line=MAX_LOG_LINE
    )
    return read_log(stream, files, options.max_file_size)
