"""Tracebacks in a log, whatever printed them: CPython (chained ones too, JAX's filtered ones,
pytest --tb=native), pytest's long, auto, short and line styles, and IPython's (a notebook's
error output, IPython 8 and later, and the older `<ipython-input-N-...>` frames).

A traceback here is its frames, outermost first, and the text of the exception it ends with;
`exception` is None when the log stops (or breaks off) before that line. The log is read as
it streams by: only the lines of the traceback being read are held.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from jaxfix.fromlog.logtext import LogLine


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    source: (
        str | None
    )  # the source line the traceback shows, stripped; None if it shows none
    # A frame in an IPython cell: its execution count (`In[3]`), and the numbered lines of the
    # cell the traceback shows (the raising one and its context), as printed.
    cell: int | None = None
    shown: tuple[tuple[int, str], ...] = ()
    # Undecodable bytes in its location line break what it says (its line number, where its
    # path ends): which line of which file it is cannot be read.
    damaged: bool = False


@dataclass(frozen=True)
class Traceback:
    start: int  # log line numbers, 1-based
    end: int
    frames: tuple[Frame, ...]
    exception: (
        str | None
    )  # "ValueError: message..." (continuation lines joined by newlines)
    garbled: tuple[
        int, ...
    ] = ()  # its lines that held bytes the log's encoding cannot decode
    cut: tuple[int, ...] = ()  # its lines too long to keep whole


class _Window:
    """The log's lines from where the reader stands: read ahead as far as a parser looks,
    dropped once the reader has passed them, so a log of any size takes the memory of its
    longest traceback."""

    def __init__(self, lines: Iterable[LogLine]) -> None:
        self._source = iter(lines)
        self._lines: list[LogLine] = []
        self._first = 0  # the index of _lines[0]

    def has(self, index: int) -> bool:
        while index - self._first >= len(self._lines):
            line = next(self._source, None)
            if line is None:
                return False
            self._lines.append(line)
        return True

    def __getitem__(self, index: int) -> LogLine:
        if not self.has(index):
            raise IndexError(index)
        return self._lines[index - self._first]

    def span(self, start: int, end: int) -> list[LogLine]:
        return self._lines[start - self._first : end - self._first]

    def release(self, index: int) -> None:
        """Forget the lines before `index` (in batches: deleting from a list's front copies it)."""
        if index - self._first > 1024:
            del self._lines[: index - self._first]
            self._first = index


def _exact(
    pattern: re.Pattern[str], line: LogLine, match: re.Match[str], text: str
) -> re.Match[str] | None:
    """The pattern's match on `text`, the line with its undecodable bytes (`line.exact`, trimmed
    as the caller trims it), where `match` is the one on the line without them: a path then
    holds those bytes, as the log did. None when they break the match or sit inside a line
    number or a count."""
    if not line.garbled:
        return match
    exact = pattern.match(text)
    if exact is None or any(
        exact[group] != match[group]
        for group in ("line", "count", "number")
        if group in pattern.groupindex
    ):
        return None
    return exact


def _unreadable(line: LogLine) -> Frame:
    """A line among the frames that undecodable bytes may have kept from reading as one (a
    quote or a colon they replaced): a damaged frame, never skipped as if it were none."""
    return Frame(line.text.strip(), 0, None, damaged=True)


def _dedent(line: LogLine, indent: int) -> str:
    """The exact line without the traceback's indentation."""
    if not line.garbled:
        return line.text[indent:]
    return re.sub(rf"^[ \t]{{0,{indent}}}", "", line.exact)


def _damage(lines: list[LogLine]) -> dict[str, tuple[int, ...]]:
    return {
        "garbled": tuple(line.number for line in lines if line.garbled),
        "cut": tuple(line.number for line in lines if line.cut),
    }


_CPYTHON_START = re.compile(r"^\s*Traceback \(most recent call last\):\s*$")
_CPYTHON_FRAME = re.compile(
    r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+))?\s*$'
)
_CARETS = re.compile(r"^\s*[\^~]+\s*$")
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::(?: (?P<message>.*))?)?$")
_CHAIN = (
    "During handling of the above exception",
    "The above exception was the direct cause",
)
_JAX_NOTE = "--------------------"

_PYTEST_HEADER = re.compile(r"^_{3,} .+ _{3,}$")
_PYTEST_SECTION = re.compile(r"^={3,}( .* ={3,}|=*)$")
_PYTEST_SEPARATOR = re.compile(r"^(?:_ ){3,}_?\s*$")
_PYTEST_LOCATION = re.compile(
    r"^(?P<path>[^\s:][^:]*\.pyw?):(?P<line>\d+):(?: (?P<rest>.*))?$"
)
_PYTEST_ERROR = re.compile(r"^E(?: {1,}(?P<text>.*))?$")


def find_tracebacks(log: Iterable[LogLine]) -> Iterator[Traceback]:
    lines = _Window(log)
    index = 0
    while lines.has(index):
        lines.release(index)
        text = lines[index].text
        if _CPYTHON_START.match(text):
            traceback, index = _cpython(lines, index)
            yield traceback
        elif _IPYTHON_START.match(text):
            traceback, index = _ipython(lines, index)
            yield traceback
        elif _PYTEST_HEADER.match(text):
            tracebacks, index = _pytest_block(lines, index + 1)
            yield from tracebacks
        elif _CPYTHON_FRAME.match(
            text
        ):  # an excerpt without its `Traceback (...)` line
            traceback, index = _cpython(lines, index, headed=False)
            yield traceback
        elif _pytest_entry(
            lines, index
        ):  # an excerpt without its `___ test ___` header
            tracebacks, index = _pytest_block(lines, index, headed=False)
            yield from tracebacks
        else:
            line_style = _pytest_line_style(lines[index])
            if line_style is not None:
                yield line_style
            index += 1


# -- CPython -------------------------------------------------------------------------------------


def _cpython(
    lines: _Window, index: int, *, headed: bool = True
) -> tuple[Traceback, int]:
    """From the `Traceback (most recent call last):` line, or (not `headed`) from the first
    `File` line of an excerpt that left it out, whose frames are indented two more."""
    start = index
    indent = len(lines[index].text) - len(lines[index].text.lstrip())
    frames: list[Frame] = []
    if headed:
        index += 1
    else:
        indent = max(indent - 2, 0)
    exception = None
    while lines.has(index):
        text = lines[index].text
        frame = _CPYTHON_FRAME.match(text)
        if frame:
            exact = _exact(_CPYTHON_FRAME, lines[index], frame, lines[index].exact)
            source = None
            following = lines[index + 1].text if lines.has(index + 1) else ""
            if (
                following.strip()
                and not _CPYTHON_FRAME.match(following)
                and following.startswith(" " * (indent + 3))
            ):
                source = lines[index + 1].exact.strip()
                index += 1
            frames.append(
                Frame(
                    (exact or frame)["path"],
                    int(frame["line"]),
                    source,
                    damaged=exact is None,
                )
            )
            index += 1
            continue
        if (
            not text.strip()
            or _CARETS.match(text)
            or text.strip().startswith("[Previous line repeated")
            or text.startswith(" " * (indent + 1))
        ):
            if lines[index].garbled and text.strip() and not _CARETS.match(text):
                frames.append(_unreadable(lines[index]))
            index += 1
            continue
        if _EXCEPTION.match(text[indent:]) and frames:
            exception, index = _exception_text(lines, index, indent)
        break
    damage = _damage(lines.span(start, index))
    return Traceback(
        lines[start].number, lines[index - 1].number, tuple(frames), exception, **damage
    ), index


def _exception_text(lines: _Window, index: int, indent: int) -> tuple[str, int]:
    """The exception line and its continuation lines, up to a blank line or what comes next."""
    parts = [_dedent(lines[index], indent)]
    index += 1
    while lines.has(index):
        text = lines[index].text
        if (
            not text.strip()
            or _CPYTHON_START.match(text)
            or text.startswith(_CHAIN)
            or text.startswith(_JAX_NOTE)
            or _PYTEST_SECTION.match(text)
            or _PYTEST_HEADER.match(text)
        ):
            break
        parts.append(_dedent(lines[index], indent))
        index += 1
    return "\n".join(parts), index


# -- IPython -------------------------------------------------------------------------------------
# As IPython/core/ultratb.py (VerboseTB.format_record) and tbtools.py print them: a header
# `ValueError      Traceback (most recent call last)`, then per frame a location line and
# numbered source lines, the raising one marked by an arrow (`----> 5 code`, `---> 12 code`):
#   IPython >= 8:  `Cell In[3], line 5` / `Cell In[2], line 3, in f(x)` / `File /p/m.py:12, in g(a)`
#   IPython 7:     `<ipython-input-3-9a8f2b1c4d5e> in <module>` / `/p/m.py in g(a)`

_IPYTHON_START = re.compile(
    r"^(?P<type>[A-Za-z_][\w.]*)\s*Traceback \(most recent call last\)\s*$"
)
_IPYTHON_CELL = re.compile(
    r"^Cell In\[(?P<count>\d+)\], line (?P<line>\d+)(?:, in .*)?$"
)
_IPYTHON_FILE = re.compile(r"^File (?P<path>.+?):(?P<line>\d+)(?:, in .*)?$")
_IPYTHON_INPUT = re.compile(r"^<ipython-input-(?P<count>\d+)-[0-9a-fA-F]+> in .*$")
_IPYTHON_OLD_FILE = re.compile(r"^(?P<path>[^\s<][^<>]*?\.pyw?) in .*$")
_IPYTHON_SOURCE = re.compile(r"^(?P<arrow>-*> ?| *)(?P<number>\d+) (?P<code>.*)$")
_IPYTHON_HEADS = (_IPYTHON_CELL, _IPYTHON_FILE, _IPYTHON_INPUT, _IPYTHON_OLD_FILE)


def _ipython(lines: _Window, index: int) -> tuple[Traceback, int]:
    start = index
    frames: list[Frame] = []
    exception = None
    index += 1
    while lines.has(index):
        text = lines[index].text.rstrip()
        head = next(
            (
                (pattern, match)
                for pattern in _IPYTHON_HEADS
                if (match := pattern.match(text))
            ),
            None,
        )
        if head:
            pattern, match = head
            exact = _exact(pattern, lines[index], match, lines[index].exact.rstrip())
            index, frame = _ipython_frame(lines, index + 1, exact or match)
            frames.append(replace(frame, damaged=True) if exact is None else frame)
            continue
        if (
            not text.strip()
            or text.strip().startswith(("[... skipping", "(...)"))
            or text.startswith(" ")
        ):
            if lines[index].garbled and text.startswith(" ") and text.strip():
                frames.append(_unreadable(lines[index]))
            index += 1
            continue
        if _EXCEPTION.match(text) and frames:
            exception, index = _exception_text(lines, index, 0)
        break
    damage = _damage(lines.span(start, index))
    return Traceback(
        lines[start].number, lines[index - 1].number, tuple(frames), exception, **damage
    ), index


def _ipython_frame(
    lines: _Window, index: int, head: re.Match[str]
) -> tuple[int, Frame]:
    shown: list[tuple[int, str]] = []
    current: tuple[int, str] | None = None
    damaged = False
    while lines.has(index):
        source = _IPYTHON_SOURCE.match(lines[index].text.rstrip("\r\n"))
        if (
            source is None or not source["arrow"]
        ):  # numbers are right-aligned in 7 columns
            break
        exact = _exact(
            _IPYTHON_SOURCE, lines[index], source, lines[index].exact.rstrip("\r\n")
        )
        damaged = damaged or exact is None
        shown.append((int(source["number"]), (exact or source)["code"]))
        if ">" in source["arrow"]:
            current = shown[-1]
        index += 1
    groups = head.groupdict()
    line = int(groups["line"]) if groups.get("line") else (current[0] if current else 0)
    code = dict(shown).get(line)
    count = int(groups["count"]) if groups.get("count") else None
    path = f"<ipython cell In[{count}]>" if count is not None else groups["path"]
    return index, Frame(
        path,
        line,
        None if code is None else code.strip(),
        count,
        tuple(shown),
        damaged=damaged,
    )


# -- pytest --------------------------------------------------------------------------------------


def _pytest_entry(lines: _Window, index: int) -> bool:
    """Whether `index` starts a short-style entry (`path:line: in func` over its indented
    source line): an excerpt of a failure copied without the test's header."""
    location = _PYTEST_LOCATION.match(lines[index].text)
    return bool(
        location
        and (location["rest"] or "").startswith("in ")
        and lines.has(index + 1)
        and lines[index + 1].text.startswith("    ")
        and lines[index + 1].text.strip()
    )


def _pytest_block(
    lines: _Window, index: int, *, headed: bool = True
) -> tuple[list[Traceback], int]:
    """One test's failure: entries split by `_ _ _` lines, each with a `path:line:` location
    after its code (long, auto) or before it (short), and the `E   ` lines of the exception;
    a chained exception's parts are separate tracebacks. Without the test's header (an
    excerpt), the failure ends with its `E` lines."""
    start = index
    frames: list[Frame] = []
    pending_source: str | None = (
        None  # the `>` line of a long-style entry, before its location
    )
    errors: list[str] = []
    tracebacks: list[Traceback] = []

    def flush(end: int) -> None:
        if frames:
            damage = _damage(lines.span(start, end))
            tracebacks.append(
                Traceback(
                    lines[start].number,
                    lines[end - 1].number,
                    tuple(frames),
                    _pytest_exception(errors),
                    **damage,
                )
            )
        frames.clear()
        errors.clear()

    while lines.has(index):
        text = lines[index].text
        if _PYTEST_HEADER.match(text) or _PYTEST_SECTION.match(text):
            break
        if not headed and errors and not _PYTEST_ERROR.match(text):
            break
        if text.startswith(_CHAIN):
            flush(index)
            start, pending_source = index, None
        if _CPYTHON_START.match(
            text
        ):  # --tb=native, or a chained traceback printed as text
            traceback, index = _cpython(lines, index)
            tracebacks.append(traceback)
            continue
        location = _PYTEST_LOCATION.match(text)
        error = _PYTEST_ERROR.match(text)
        if _PYTEST_SEPARATOR.match(text):
            pending_source = None
        elif location:
            exact = _exact(_PYTEST_LOCATION, lines[index], location, lines[index].exact)
            rest = location["rest"] or ""
            source = pending_source
            following = lines[index + 1].text if lines.has(index + 1) else ""
            if (
                source is None
                and rest.startswith("in ")
                and following.startswith("    ")
            ):
                source = lines[index + 1].exact.strip()
                index += 1
            frames.append(
                Frame(
                    (exact or location)["path"],
                    int(location["line"]),
                    source,
                    damaged=exact is None,
                )
            )
            pending_source = None
        elif error:
            exact = _exact(_PYTEST_ERROR, lines[index], error, lines[index].exact)
            errors.append((exact["text"] or "") if exact else lines[index].exact)
        elif text.startswith(">"):
            pending_source = lines[index].exact.split(">", 1)[-1].strip()
        elif lines[index].garbled and ".py" in text:  # a location its bytes may hide
            frames.append(_unreadable(lines[index]))
        index += 1
    flush(index)
    return tracebacks, index


def _pytest_exception(errors: list[str]) -> str | None:
    """The `E` lines from the first one that starts an exception (`Type: message`)."""
    for position, text in enumerate(errors):
        if _EXCEPTION.match(text) and (":" in text or position == len(errors) - 1):
            return "\n".join(errors[position:])
    return None


def _pytest_line_style(line: LogLine) -> Traceback | None:
    """`--tb=line`: `path:line: Type: message`, the one place where the exception was raised."""
    location = _PYTEST_LOCATION.match(line.text)
    rest = location["rest"] if location else None
    if (
        location is None
        or not rest
        or not _EXCEPTION.match(rest)
        or ": " not in rest
        or rest.startswith("in ")
    ):
        return None
    exact = _exact(_PYTEST_LOCATION, line, location, line.exact)
    frame = Frame(
        (exact or location)["path"],
        int(location["line"]),
        None,
        damaged=exact is None,
    )
    message = (exact["rest"] or "") if exact else rest
    return Traceback(line.number, line.number, (frame,), message, **_damage([line]))
