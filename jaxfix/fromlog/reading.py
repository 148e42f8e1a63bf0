"""A whole log in, Evidence per local file and one error line per unusable traceback out.

The log is read as a stream (jaxfix/sources/file_io.py's `TextStream`): a log of any size takes the
memory of its longest traceback, not of the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from jaxfix.evidence.facts import Evidence, Facts
from jaxfix.fromlog.errors import MessageError, error_code, looks_like_ours, read_facts
from jaxfix.fromlog.locate import (
    ChangedSinceLog,
    LocateError,
    TreeIndex,
    UndecodableFrame,
    locate,
)
from jaxfix.fromlog.logtext import clean_lines
from jaxfix.fromlog.tracebacks import Frame, Traceback, find_tracebacks
from jaxfix.sources.file_io import TextStream

# A log line longer than this is kept only this far (and a traceback holding it is not used):
# JAX's messages are far shorter, and a line without end (/dev/zero) must not fill the memory.
MAX_LOG_LINE = 64 * 1024


@dataclass(frozen=True)
class Changed:
    """A traceback whose line no longer holds the code the log shows: it may hold the rule's fix
    (jaxfix/fromlog/fixed.py tells), else `error` is said."""

    local: Path
    code: str
    line: int
    logged: str | None  # the line the log shows
    facts: Facts
    log_line: int
    error: str


@dataclass
class LogReading:
    evidence: dict[Path, tuple[Evidence, ...]] = field(default_factory=dict)
    errors: list[str] = field(
        default_factory=list
    )  # "log line N: JAX002 traceback: why"
    occurrences: int = 0  # tracebacks of the three errors, usable or not
    changed: list[Changed] = field(default_factory=list)  # in log order
    notes: list[str] = field(
        default_factory=list
    )  # tracebacks used although some of their lines held undecodable bytes


def _possibly_ours(traceback: Traceback) -> bool:
    """A traceback whose end is lost went through JAX: it may have been one of the three."""
    return looks_like_ours(traceback) or any(
        "/jax/" in f.path.replace("\\", "/") for f in traceback.frames
    )


def _log_lines(numbers: tuple[int, ...]) -> str:
    """`log line 7`, `log lines 3-5, 9, 12, ...`."""
    ranges: list[list[int]] = []
    for number in numbers:
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges[:4]) + (
        ", ..." if len(ranges) > 4 else ""
    )
    return f"log line{'s' if len(numbers) > 1 else ''} {shown}"


def damage(traceback: Traceback, encoding: str) -> str | None:
    """Which of the traceback's lines could not be read whole, and why; None if all could."""
    parts = []
    if traceback.garbled:
        verb = "holds" if len(traceback.garbled) == 1 else "hold"
        parts.append(
            f"{_log_lines(traceback.garbled)} {verb} bytes that are not {encoding.upper()}"
        )
    if traceback.cut:
        verb = "is" if len(traceback.cut) == 1 else "are"
        parts.append(
            f"{_log_lines(traceback.cut)} {verb} longer than {MAX_LOG_LINE:,} characters"
        )
    return " and ".join(parts) or None


def read_log(log: TextStream, files: list[Path], max_file_size: int) -> LogReading:
    """`max_file_size`: the bound on the local files the log's frames name (max-file-size)."""
    reading = LogReading()
    index = TreeIndex(files, max_file_size)
    sources: dict[Path, list[str]] = {}
    found: dict[tuple[Path, int, str], list[tuple[int, Facts]]] = {}
    callers: dict[tuple[Path, int, str], set[int]] = {}
    for traceback in find_tracebacks(clean_lines(log)):
        code = error_code(traceback)
        where = f"log line {traceback.end}"
        damaged = damage(traceback, log.encoding)
        if code is None:
            if (traceback.exception is None or damaged) and _possibly_ours(traceback):
                reading.occurrences += 1
                why = (
                    f"cannot be read whole ({damaged})"
                    if damaged
                    else "is cut off before its exception"
                )
                reading.errors.append(
                    f"{where}: a traceback through JAX {why}, so which error it is cannot be read: skipped"
                )
            continue
        reading.occurrences += 1
        try:
            if traceback.cut:
                raise MessageError(
                    f"{damaged}, so its paths or meshes cannot be trusted"
                )
            facts = read_facts(code, traceback.exception)  # type: ignore[arg-type]
            local, frame = locate(
                traceback.frames,
                index,
                sources,
                max_file_size,
                exact_paths=log.encoding == "utf-8",
            )
        except UndecodableFrame as error:
            reading.errors.append(
                f"{where}: {code} traceback not used: {damaged}, in {error}"
            )
            continue
        except ChangedSinceLog as error:
            reading.changed.append(
                Changed(
                    error.local,
                    code,
                    error.frame.line,
                    error.frame.source,
                    facts,
                    traceback.end,
                    f"{where}: {code} traceback not used: {error}",
                )
            )
            continue
        except (MessageError, LocateError) as error:
            said = f" ({damaged})" if damaged and not traceback.cut else ""
            reading.errors.append(f"{where}: {code} traceback not used: {error}{said}")
            continue
        if damaged:  # bytes where nothing the traceback is used by comes from
            reading.notes.append(
                f"{where}: {code} traceback used, although {damaged}: none in its meshes "
                "or in the location and code of the frame it is placed by"
            )
        found.setdefault((local, frame.line, code), []).append((traceback.end, facts))
        callers.setdefault((local, frame.line, code), set()).update(
            _callers(traceback.frames, frame, local, index)
        )
    by_file: dict[Path, list[Evidence]] = {}
    for (local, line, code), seen in sorted(
        found.items(), key=lambda item: (item[0][0].as_posix(), item[0][1], item[0][2])
    ):
        distinct = tuple(dict.fromkeys(f for _, f in seen))
        by_file.setdefault(local, []).append(
            Evidence(
                code,
                line,
                tuple(sorted(n for n, _ in seen)),
                distinct,
                callers=tuple(sorted(callers[(local, line, code)])),
            )
        )
    reading.evidence = {path: tuple(items) for path, items in by_file.items()}
    return reading


def _callers(
    frames: tuple[Frame, ...], placed: Frame, local: Path, index: TreeIndex
) -> set[int]:
    """The lines of `local` the frames outside the one placed show: the calls the traceback
    went through on its way there."""
    outer = next(
        (frames[:i] for i in range(len(frames) - 1, -1, -1) if frames[i] is placed), ()
    )
    return {
        f.line
        for f in outer
        if f.cell is None
        and not f.damaged
        and f.line != placed.line
        and index.map(f.path) == local
    }
