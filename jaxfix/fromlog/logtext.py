"""A log's lines as the program printed them: CI timestamps, ANSI colours, workflow commands
(`##[group]`, `::group::`) and `gh run view --log` columns removed, undecodable bytes marked."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# GitHub Actions ("2024-05-01T12:00:00.1234567Z "), GitLab ("2024-05-01T12:00:00.123456Z 00O "),
# and the "[12:00:00] " / "12:00:00 " stamps of other runners.
_TIMESTAMP = re.compile(
    r"^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?: \d\d[OE]\+?)?"
    r"|\[\d\d:\d\d:\d\d(?:[.,]\d+)?\]|\d\d:\d\d:\d\d[.,]\d+) ?"
)
# `gh run view --log` / `--log-failed`: "job<TAB>step<TAB>" before each timestamped line.
_GH_COLUMNS = re.compile(r"^[^\t]*\t[^\t]*\t(?=\d{4}-\d\d-\d\dT)")
_WORKFLOW_COMMAND = re.compile(r"^(?:##\[[a-z]+\]|::[a-z-]+(?: [^:]*)?::)")
_REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class LogLine:
    number: int  # 1-based, in the raw log
    text: str
    garbled: bool  # it held bytes that are not UTF-8


def clean_lines(data: bytes) -> list[LogLine]:
    text = data.decode("utf-8", errors="replace")
    lines = []
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.rstrip("\r")
        raw = raw.rsplit("\r", 1)[-1]  # progress bars redraw the line: keep what was left showing
        line = _ANSI.sub("", raw)
        line = _TIMESTAMP.sub("", _GH_COLUMNS.sub("", line, count=1), count=1)
        line = _WORKFLOW_COMMAND.sub("", line, count=1)
        lines.append(LogLine(number, line, _REPLACEMENT in line))
    return lines
