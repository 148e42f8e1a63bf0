"""`--evidence FILE`: the files and evidence a run takes from a recorded run (jaxfix/evidence/records.py)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from jaxfix.check.registry import codes_listed
from jaxfix.check.run import Run
from jaxfix.cli.from_log import LogRun
from jaxfix.evidence.records import MAX_EVIDENCE_BYTES, EvidenceReading, read_evidence
from jaxfix.ground.escaping import printable
from jaxfix.settings.options import Options
from jaxfix.sources.discovery import discover
from jaxfix.sources.file_io import ReadError, read_regular
from jaxfix.sources.paths import display_path


def read_evidence_file(
    path: Path, files: list[Path], options: Options
) -> EvidenceReading | str:
    """The reading, or why the file cannot be read (regular files only, size-bounded)."""
    try:
        data = read_regular(path, MAX_EVIDENCE_BYTES, bound="the evidence file limit")
    except ReadError as error:
        return str(error)
    return read_evidence(data, files, options.max_file_size)


def evidence_file_run(
    evidence: str, paths: list[Path], run: Run, console: Console
) -> LogRun:
    """The files to check (those the recorded errors raised in), their evidence, and how many
    records could not be used (each said on one line)."""
    name = printable(display_path(Path(evidence)))
    options = run.options
    found = discover(paths, options.exclude, options.all_includes)
    reading = read_evidence_file(Path(evidence), found.files, options)
    if isinstance(reading, str):
        console.print(
            Text(f"{name}: error: {printable(reading)}", style="red"), soft_wrap=True
        )
        return LogRun([], {}, 1, 0)
    problems = [
        *reading.errors,
        *(
            f"record {r.record}: {r.code} not used: {r.problem}"
            for r in reading.raised
            if r.problem
        ),
    ]
    for problem in problems:
        console.print(
            Text(printable(f"{name}: error: {problem}"), style="red"), soft_wrap=True
        )  # paths from the file
    if not reading.raised:
        console.print(
            Text(
                f"{name}: no {codes_listed()} error recorded: nothing to do",
                style="dim",
            )
        )
    from jaxfix.check.value_sites import with_value_sites

    # with the places the values are written, which get their fix as repair gives it
    evidence_map = with_value_sites(
        {path.resolve(): items for path, items in reading.evidence.items()},
        run,
        found.files,
    )
    return LogRun(sorted(evidence_map), evidence_map, len(problems), 0)
