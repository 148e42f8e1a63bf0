"""`--from-log FILE`: the files and evidence a run takes from a log of tracebacks."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.text import Text

from jaxfix.discovery import discover
from jaxfix.fromlog.reading import read_log
from jaxfix.options import Options


def evidence_run(log: str, paths: list[Path], options: Options, console: Console) -> tuple[list[Path], Options, bool]:
    """The files to check (those the log's tracebacks raised in), the options carrying their
    evidence, and whether some traceback could not be used (each said on one line)."""
    name = "<stdin>" if log == "-" else log
    data = sys.stdin.buffer.read() if log == "-" else Path(log).read_bytes()
    found = discover(paths, options.exclude, options.all_includes)
    reading = read_log(data, found.files)
    for error in reading.errors:
        console.print(Text(f"{name}: error: {error}", style="red"), soft_wrap=True)
    if not reading.occurrences:
        console.print(f"{name}: no traceback of JAX001, JAX002 or JAX003 in the log: nothing to do", style="dim")
    evidence = {path.resolve(): items for path, items in reading.evidence.items()}
    return sorted(reading.evidence), replace(options, evidence=evidence), bool(reading.errors)
