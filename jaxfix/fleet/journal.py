"""What a fleet run has finished, kept so that a resume (with any executor) skips it.

Each finished repository is appended to `journal.jsonl` as one JSON line, flushed to disk before
the next starts: linear in the fleet's size, where rewriting report.json each time was quadratic.
`report.json` is the snapshot rendered at the end of a run (and on Ctrl-C); once it is safely
replaced, the journal it absorbed is removed. Loading reads the snapshot, then the journal on
top; a last line cut short by a crash is ignored (that repository simply runs again).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from jaxfix import __version__
from jaxfix.ground.bounded_data import load_json
from jaxfix.workflows.migrate import RepoReport
from jaxfix.write.safe_write import write_file

REPORT_JSON, JOURNAL = "report.json", "journal.jsonl"


class ResumeError(Exception):
    """The --out directory holds a record that cannot be read back."""


def load(out: Path) -> dict[str, RepoReport]:
    """Every repository recorded in `out`, keyed by its `repo`; the latest record wins."""
    entries: dict[str, RepoReport] = {}
    snapshot = out / REPORT_JSON
    if snapshot.exists():
        try:
            document = load_json(snapshot.read_text(encoding="utf-8"))
            entries.update(
                (e["repo"], RepoReport.from_json(e)) for e in document["repos"]
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ResumeError(
                f"{snapshot}: cannot resume from it ({type(error).__name__}: {error})"
            ) from None
    journal = out / JOURNAL
    if journal.exists():
        lines = journal.read_bytes().split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = RepoReport.from_json(load_json(line))
            except (ValueError, KeyError, TypeError) as error:
                if number == len(lines):  # no newline yet: the write was cut short
                    break
                raise ResumeError(
                    f"{journal}:{number}: cannot resume from it ({type(error).__name__}: {error})"
                ) from None
            entries[entry.repo] = entry
    return entries


def append(out: Path, entry: RepoReport) -> None:
    """Record one finished repository durably before anything else happens."""
    line = json.dumps(entry.to_json(), separators=(",", ":")) + "\n"
    with open(out / JOURNAL, "ab") as handle:
        handle.write(line.encode())
        handle.flush()
        os.fsync(handle.fileno())


def write_snapshot(
    out: Path, entries: list[RepoReport], run: dict[str, Any] | None = None
) -> None:
    """report.json with `entries` (all the journal holds, in report order) and the last run's
    options and times, then drop the journal."""
    document = {
        "jaxfix": __version__,
        "run": run,
        "repos": [e.to_json() for e in entries],
    }
    write_file(out / REPORT_JSON, (json.dumps(document, indent=2) + "\n").encode())
    (out / JOURNAL).unlink(missing_ok=True)
