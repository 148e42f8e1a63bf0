"""`--from-log FILE`: the files and evidence a run takes from a log of tracebacks."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

from rich.console import Console
from rich.text import Text

from jaxfix.discovery import discover
from jaxfix.escaping import printable
from jaxfix.fromlog.fixed import already_fixed
from jaxfix.fromlog.reading import read_log
from jaxfix.options import Options
from jaxfix.paths import display_path


@dataclass(frozen=True)
class LogRun:
    """What a run takes from the log: the files to check (those its tracebacks raised in), the
    options carrying their evidence, and what the summary counts."""

    files: list[Path]
    options: Options
    errors: int  # tracebacks not used, each said on one line
    already_fixed: int  # sites whose line now holds the rule's fix


def evidence_run(log: str, paths: list[Path], options: Options, console: Console) -> LogRun:
    name = "<stdin>" if log == "-" else log
    data = sys.stdin.buffer.read() if log == "-" else Path(log).read_bytes()
    found = discover(paths, options.exclude, options.all_includes)
    reading = read_log(data, found.files)
    errors = list(reading.errors)
    verdicts: dict[tuple[Path, str, int, str | None], int | None] = {}  # site -> the line holding its fix
    for changed in reading.changed:
        site = (changed.local, changed.code, changed.line, changed.logged)
        if site not in verdicts:
            verdicts[site] = None if changed.logged is None else already_fixed(
                changed.local, changed.code, changed.line, changed.logged, changed.facts, changed.log_line, options,
            )
            if verdicts[site] is not None:
                console.print(Text(printable(
                    f"{name}: log line {changed.log_line}: {changed.code} at {display_path(changed.local)}:{changed.line} "
                    f"is already fixed (line {verdicts[site]} holds the rule's fix)"), style="dim",
                ), soft_wrap=True)
        if verdicts[site] is None:
            errors.append(changed.error)
    for error in errors:
        console.print(Text(printable(f"{name}: error: {error}"), style="red"), soft_wrap=True)  # paths from the log
    if not reading.occurrences:
        console.print(Text(f"{printable(name)}: no traceback of JAX001, JAX002 or JAX003 in the log: nothing to do", style="dim"))
    evidence = {path.resolve(): items for path, items in reading.evidence.items()}
    fixed = sum(1 for line in verdicts.values() if line is not None)
    return LogRun(sorted(reading.evidence), replace(options, evidence=evidence), len(errors), fixed)
