"""A whole log in, Evidence per local file and one error line per unusable traceback out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from jaxfix.evidence import Evidence, Facts
from jaxfix.fromlog.errors import MessageError, error_code, looks_like_ours, read_facts
from jaxfix.fromlog.locate import ChangedSinceLog, LocateError, TreeIndex, locate
from jaxfix.fromlog.logtext import clean_lines
from jaxfix.fromlog.tracebacks import Traceback, find_tracebacks


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
    errors: list[str] = field(default_factory=list)  # "log line N: JAX002 traceback: why"
    occurrences: int = 0  # tracebacks of the three errors, usable or not
    changed: list[Changed] = field(default_factory=list)  # in log order


def _possibly_ours(traceback: Traceback) -> bool:
    """A traceback whose end is lost went through JAX: it may have been one of the three."""
    return looks_like_ours(traceback) or any("/jax/" in f.path.replace("\\", "/") for f in traceback.frames)


def read_log(data: bytes, files: list[Path]) -> LogReading:
    reading = LogReading()
    index = TreeIndex(files)
    sources: dict[Path, list[str]] = {}
    found: dict[tuple[Path, int, str], list[tuple[int, Facts]]] = {}
    for traceback in find_tracebacks(clean_lines(data)):
        code = error_code(traceback)
        where = f"log line {traceback.end}"
        if code is None:
            if (traceback.exception is None or traceback.garbled) and _possibly_ours(traceback):
                reading.occurrences += 1
                why = "is cut off before its exception" if traceback.exception is None else "holds bytes that are not UTF-8"
                reading.errors.append(f"{where}: a traceback through JAX {why}, so which error it is cannot be read: skipped")
            continue
        reading.occurrences += 1
        try:
            if traceback.garbled:
                raise MessageError("it holds bytes that are not UTF-8, so its paths or meshes cannot be trusted")
            facts = read_facts(code, traceback.exception)  # type: ignore[arg-type]
            local, frame = locate(traceback.frames, index, sources)
        except ChangedSinceLog as error:
            reading.changed.append(Changed(
                error.local, code, error.frame.line, error.frame.source, facts, traceback.end,
                f"{where}: {code} traceback not used: {error}",
            ))
            continue
        except (MessageError, LocateError) as error:
            reading.errors.append(f"{where}: {code} traceback not used: {error}")
            continue
        found.setdefault((local, frame.line, code), []).append((traceback.end, facts))
    by_file: dict[Path, list[Evidence]] = {}
    for (local, line, code), seen in sorted(found.items(), key=lambda item: (item[0][0].as_posix(), item[0][1], item[0][2])):
        distinct = tuple(dict.fromkeys(f for _, f in seen))
        by_file.setdefault(local, []).append(Evidence(code, line, tuple(sorted(n for n, _ in seen)), distinct))
    reading.evidence = {path: tuple(items) for path, items in by_file.items()}
    return reading
