"""A log's lines as the program printed them: CI timestamps, ANSI colours, workflow commands
(`##[group]`, `::group::`), `gh run view --log` columns and NUL padding removed, undecodable
bytes and cut lines marked. A line with undecodable bytes is read twice: without them, to see
what it is, and with them (`exact`), for what a traceback takes from it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from jaxfix.sources.file_io import UNDECODABLE, TextLine

_ANSI = re.compile(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]"
)
# GitHub Actions ("2024-05-01T12:00:00.1234567Z "), GitLab ("2024-05-01T12:00:00.123456Z 00O "),
# and the "[12:00:00] " / "12:00:00 " stamps of other runners.
_TIMESTAMP = re.compile(
    r"^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?: \d\d[OE]\+?)?"
    r"|\[\d\d:\d\d:\d\d(?:[.,]\d+)?\]|\d\d:\d\d:\d\d[.,]\d+) ?"
)
# `gh run view --log` / `--log-failed`: "job<TAB>step<TAB>" before each timestamped line.
_GH_COLUMNS = re.compile(r"^[^\t]*\t[^\t]*\t(?=\d{4}-\d\d-\d\dT)")
_WORKFLOW_COMMAND = re.compile(r"^(?:##\[[a-z]+\]|::[a-z-]+(?: [^:]*)?::)")
# NUL padding (a log truncated in place while its writer went on): dropped, so that the line is
# still recognised.
_NUL = "\x00"


@dataclass(frozen=True)
class LogLine:
    number: int  # 1-based, in the raw log (a lone \r ends a line, as \n and \r\n do)
    text: str  # undecodable bytes dropped: what recognises the line (a frame, an exception)
    # With its undecodable bytes kept (file_io.UNDECODABLE marks): what a traceback takes from
    # the line (paths, code, the message), so that they cannot pass for other text.
    exact: str
    garbled: bool  # it held bytes the log's encoding cannot decode
    cut: bool = False  # it was too long to keep whole


def clean_lines(lines: Iterable[TextLine]) -> Iterator[LogLine]:
    for raw in lines:
        line = raw.text.replace(_NUL, "") if _NUL in raw.text else raw.text
        text = _cleaned(UNDECODABLE.sub("", line) if raw.undecodable else line)
        exact = _cleaned(line) if raw.undecodable else text
        yield LogLine(raw.number, text, exact, raw.undecodable, raw.cut)


def _cleaned(line: str) -> str:
    line = _ANSI.sub("", line)
    line = _TIMESTAMP.sub("", _GH_COLUMNS.sub("", line, count=1), count=1)
    return _WORKFLOW_COMMAND.sub("", line, count=1)
