"""An evidence file (the recorder's JSON lines, jaxfix/evidence/recorder.py) read as Evidence per local
file, with one error line for each record that cannot be used.

The file is untrusted (a program can write its own records, a pull request can bring one): a
record only selects a site and supplies facts. Its paths are mapped onto the tree as `--from-log`
maps a log's (jaxfix/fromlog/locate.py), its line must still read as the run saw it (else the
file "has changed since the run"), and its meshes must be what JAX's message says.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jaxfix.evidence.facts import (
    DevicesSeen,
    EnvironmentRead,
    Evidence,
    Facts,
    MeshFacts,
    Origin,
)
from jaxfix.evidence.message_templates import roles as mesh_roles
from jaxfix.evidence.recorder import SCHEMA
from jaxfix.fromlog.errors import MessageError, read_facts, rules, template_of
from jaxfix.fromlog.locate import LocateError, TreeIndex, is_library, locate
from jaxfix.fromlog.tracebacks import Frame
from jaxfix.ground.bounded_data import DataError, load_json
from jaxfix.settings.options import DEFAULT_MAX_FILE_SIZE
from jaxfix.sources.file_io import ReadError, source_lines

MAX_RECORDS = 10_000
MAX_EVIDENCE_BYTES = 64 * 1024 * 1024
_MAX_ERRORS_SHOWN = 20
_VERSION = re.compile(r"\d+(?:\.\d+)*")
# jax.make_mesh's message when its shape exceeds the devices (jax 0.10.2 and 0.12.0.1)
_MAKE_MESH_DEVICES = re.compile(
    r"Number of devices (\d{1,9}) must be >= the product of mesh_shape"
)


@dataclass(frozen=True)
class Raised:
    """One recorded error of the three, where it was raised in the tree (or why it cannot be used)."""

    code: str
    record: int  # 1-based line of the evidence file
    message: str
    test: str | None
    path: Path | None = None  # the local file, None when unusable
    line: int = 0
    columns: tuple[int, int] | None = None
    problem: str | None = None  # why it cannot be used
    # the lines of the tree the run was inside when it raised (`_inside`)
    inside: tuple[tuple[Path, int], ...] = ()

    @property
    def site(self) -> tuple[str, str, int] | None:
        return (
            None if self.path is None else (self.code, self.path.as_posix(), self.line)
        )


@dataclass(frozen=True)
class Failure:
    """A recorded failure that is not one of the three errors: not jaxfix's to fix."""

    exception: str
    message: str
    test: str | None
    record: int
    inside: tuple[tuple[Path, int], ...] = ()  # as Raised's
    at: tuple[Path, int] | None = None  # its innermost frame in the tree


@dataclass
class EvidenceReading:
    evidence: dict[Path, tuple[Evidence, ...]] = field(default_factory=dict)
    raised: list[Raised] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    errors: list[str] = field(
        default_factory=list
    )  # "record N: why", for records that are not even records
    jax_versions: set[str] = field(
        default_factory=set
    )  # of the processes that imported JAX


class _Bad(ValueError):
    pass


def _str(
    record: dict[str, Any], key: str, *, optional: bool = False, limit: int = 10_000
) -> str | None:
    value = record.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise _Bad(f"'{key}' is not a string")
    return value


_MAX_ARGUMENTS = 32


def _arguments(value: Any) -> list[str]:
    """A process record's command-line arguments after the program's own name (the
    recorder keeps at most 8, each cut at 200 characters); [] when they are not strings."""
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        return []
    return [a for a in value[1:8] if 0 < len(a) <= 200]


def _int(value: Any, what: str, low: int = 0, high: int = 2**31) -> int:
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or not low <= value <= high
    ):
        raise _Bad(f"{what} is not a number from {low} to {high}")
    return value


def parse_jax_version(text: str | None) -> tuple[int, ...] | None:
    """'0.12.0.1' -> (0, 12, 0, 1); a dev or rc suffix is dropped. None for what is no
    version, such as a part of thousands of digits (from a record: Python will not read it)."""
    found = _VERSION.match(text) if isinstance(text, str) else None
    parts = found.group(0).split(".")[:4] if found else []
    return tuple(int(p) for p in parts) if parts and max(map(len, parts)) < 10 else None


def _mesh(value: Any) -> MeshFacts:
    if not isinstance(value, dict) or value.get("kind") not in ("abstract", "concrete"):
        raise _Bad("a mesh is not an object with a kind")
    names, sizes, types = (
        value.get("axis_names"),
        value.get("axis_sizes"),
        value.get("axis_types"),
    )
    if not isinstance(names, list) or not all(
        isinstance(n, str) and len(n) < 200 for n in names
    ):
        raise _Bad("a mesh's axis_names are not strings")
    if not isinstance(sizes, list) or len(sizes) != len(names):
        raise _Bad("a mesh's axis_sizes do not match its names")
    sizes = [_int(s, "an axis size", 1) for s in sizes]
    if types is not None and (
        not isinstance(types, list)
        or len(types) != len(names)
        or not all(t in ("Auto", "Explicit", "Manual") for t in types)
    ):
        raise _Bad("a mesh's axis_types are not Auto, Explicit or Manual, one per axis")
    count = value.get("device_count")
    devices = None if count is None else _int(count, "a device count", 0)
    return MeshFacts(
        value["kind"],
        tuple(names),
        tuple(sizes),
        None if types is None else tuple(types),
        bool(value.get("has_abstract_device")),
        devices,
    )


def _facts(code: str, message: str, meshes: Any) -> Facts:
    """The message's meshes (as `--from-log` reads them), completed by the meshes JAX held, which
    are used only where they agree with the message (names and sizes), the message names
    none, or the role is one this message does not print (JAX003's input under its
    context-mesh error)."""
    rule = rules()[code]
    roles = mesh_roles(rule.raises)
    try:
        said: Facts | None = read_facts(code, message)
    except MessageError:
        said = None
    held: dict[str, MeshFacts] = {}
    if isinstance(meshes, dict):
        for role in roles:
            if role in meshes:
                held[role] = _mesh(meshes[role])
    if said is None and len(held) < len(roles):
        raise _Bad(
            "its meshes can be read neither from the message nor from the record"
        )
    if said is None or (not said and held):
        # no mesh in the message (JAX010's "AbstractMesh size: 4 does not match ..."):
        # the record's own, each of the size the message states for it
        counts = dict(said.counts) if said is not None else {}
        for role, mesh in held.items():
            if role in counts and counts[role] != mesh.size:
                raise _Bad(
                    f"its {role} mesh is of size {mesh.size}, its message says {counts[role]}"
                )
        facts = Facts.of(held, counts)
        why = rule.impossible(facts)
        if why is not None:
            raise _Bad(why)
        return facts
    merged = {}
    printed = set(mesh_roles((template_of(rule.raises, message),)))
    for role in roles:
        text, data = said.get(role), held.get(role)
        if (
            text is not None
            and data is not None
            and (text.axis_names, text.axis_sizes) == (data.axis_names, data.axis_sizes)
        ):
            text = MeshFacts(
                text.kind,
                text.axis_names,
                text.axis_sizes,
                text.axis_types or data.axis_types,
                text.has_abstract_device or data.has_abstract_device,
                data.device_count,
            )
        if text is not None:
            merged[role] = text
        elif data is not None and role not in printed:
            merged[role] = data
    return Facts.of(merged, dict(said.counts))


_Span = tuple[int, int, int]  # end line, column, end column


def _frames(value: Any) -> list[tuple[Frame, _Span | None, str | None]]:
    """(frame, its span or None, the source text of that span or None) for each recorded frame."""
    if not isinstance(value, list) or not value or len(value) > 1000:
        raise _Bad("it has no frames")
    frames: list[tuple[Frame, _Span | None, str | None]] = []
    for item in value:
        if not isinstance(item, dict):
            raise _Bad("a frame is not an object")
        path = _str(item, "path", limit=4096)
        line = _int(item.get("line"), "a frame's line", 1)
        source = _str(item, "source", optional=True)
        span = None
        if item.get("column") is not None:
            span = (
                _int(item.get("end_line"), "a frame's end line", line),
                _int(item.get("column"), "a frame's column"),
                _int(item.get("end_column"), "a frame's end column"),
            )
        frames.append(
            (
                Frame(path or "", line, source),
                span,
                _str(item, "segment", optional=True),
            )
        )
    return frames


_MAX_ORIGIN_FRAMES = 8  # as the recorder keeps them
_MAX_CONTEXTS = 8  # as the recorder keeps them


def _inside_failure(
    record: dict[str, Any], index: TreeIndex
) -> tuple[tuple[tuple[Path, int], ...], tuple[Path, int] | None]:
    """A failure's `_inside` lines, and the innermost of its frames among them."""
    raising = _inside({"frames": record.get("frames")}, index)
    return _inside(record, index), raising[-1] if raising else None


def _inside(record: dict[str, Any], index: TreeIndex) -> tuple[tuple[Path, int], ...]:
    """The tree's lines the run was inside when it raised: its frames' lines and those that
    entered the mesh contexts the error left, each placed in the tree (jaxfix's guard compares
    them with the lines its own fixes wrote: no line is read, a frame outside the tree is
    left out, a record without them names none)."""
    found: dict[tuple[Path, int], None] = {}
    contexts = record.get("contexts")
    groups = [record.get("frames")]
    if isinstance(contexts, list):
        groups += contexts[:_MAX_CONTEXTS]
    for group in groups:
        try:
            frames = _frames(group)
        except _Bad:
            continue
        for frame, _, _ in frames:
            try:
                local = None if is_library(frame) else index.map(frame.path)
            except LocateError:  # several files end as it does: none is guessed
                continue
            if local is not None:
                found[(local, frame.line)] = None
    return tuple(found)


def _origins(
    meshes: Any,
    index: TreeIndex,
    sources: dict[Path, list[str]],
    max_file_size: int,
    facts: Facts | None = None,
    test: str | None = None,
    reached: tuple[tuple[Path, int], ...] = (),
) -> tuple[Origin, ...]:
    """Where the record's meshes were built and entered, each frame placed in the tree and its
    line (and segment) checked against the file as it is now; a frame that is not (a file
    outside the tree, a library's, a line changed since the run, a malformed frame) ends the
    chain there, so that only frames the code still shows are ever walked. Each origin keeps
    the record's `facts` (its own meshes, as checked against its message). A mesh built by
    the body of another test than the record's (`test`; a memoized factory handed it on) was
    not built on this test's path: its creation frames are kept as `cached`, with the
    record's own frames to the raising line (`reached`)."""
    if not isinstance(meshes, dict):
        return ()
    found = []
    for role, mesh in sorted(meshes.items(), key=lambda item: str(item[0])):
        if not isinstance(role, str) or not isinstance(mesh, dict):
            continue
        for kind in ("built", "entered"):
            recorded = mesh.get(kind)
            cached = kind == "built" and _built_by_another_test(mesh, test)
            if not isinstance(recorded, list) or len(recorded) > _MAX_ORIGIN_FRAMES:
                continue
            placed: list[tuple[Path, int]] = []
            columns: list[tuple[int, int] | None] = []
            try:
                frames = _frames(recorded)
            except _Bad:
                continue
            for frame, span, segment in reversed(frames):  # innermost first
                try:
                    local, found_frame = locate((frame,), index, sources, max_file_size)
                    shown = _columns(sources[local], found_frame, span, segment, local)
                except LocateError:
                    break
                placed.append((local, found_frame.line))
                columns.append(shown if segment is not None else None)
            chain, spans = tuple(reversed(placed)), tuple(reversed(columns))
            if placed and cached:
                found.append(
                    Origin(role[:40], "cached", chain, facts, reached, columns=spans)
                )
            elif placed:
                found.append(
                    Origin(
                        role[:40],
                        kind,
                        chain,
                        facts,
                        columns=spans,
                        mesh=None if role in (facts or {}) else _unnamed_mesh(mesh),
                    )
                )
    return tuple(found)


def _unnamed_mesh(mesh: dict[str, Any]) -> MeshFacts | None:
    """A recorded mesh no message names, as the record held it; None where it is malformed."""
    try:
        return _mesh(mesh)
    except _Bad:
        return None


def _built_by_another_test(mesh: dict[str, Any], test: str | None) -> bool:
    """Whether the recorder saw `mesh` built while another test than `test` ran its body
    (pytest's `tests/a_test.py::test_x (call)`; a fixture's setup builds for the tests that
    follow)."""
    during = mesh.get("built_during")
    if not isinstance(during, str) or len(during) > 2000 or test is None:
        return False
    name, _, phase = during.rpartition(" (")
    return phase == "call)" and name != test


def _context_origins(
    contexts: Any, index: TreeIndex, sources: dict[Path, list[str]], max_file_size: int
) -> tuple[Origin, ...]:
    """The `with` statements the run was inside when it raised (the contexts the error left,
    the `with mesh:` of a fixture still in force), as `with` `entered` origins, each placed
    and checked as a mesh's origins are."""
    if not isinstance(contexts, list):
        return ()
    found: list[Origin] = []
    for group in contexts[:_MAX_CONTEXTS]:
        for origin in _origins(
            {"with": {"entered": group}}, index, sources, max_file_size
        ):
            if origin not in found:
                found.append(origin)
    return tuple(found)


_MAX_CALLERS = 8  # user frames kept above the raising one


def _called_from(
    frames: list[tuple[Frame, _Span | None, str | None]],
    raised: Frame,
    local: Path,
    index: TreeIndex,
    sources: dict[Path, list[str]],
    max_file_size: int,
) -> tuple[Origin, ...]:
    """The raising frame and the user frames that called into it (through JAX's frames, which
    its traceback filtering may have dropped: a jitted function's caller), as `raised`
    `called`, outermost first: each caller placed in the tree and its line and segment checked
    as the raising frame's are; the chain ends at the first that is not (none: no origin)."""
    at = max((i for i, (f, _, _) in enumerate(frames) if f == raised), default=0)
    callers: list[tuple[Path, int]] = []
    for frame, span, segment in reversed(frames[:at]):
        if is_library(frame):
            continue
        try:
            placed, found = locate((frame,), index, sources, max_file_size)
            _columns(sources[placed], found, span, segment, placed)
        except LocateError:
            break
        callers.append((placed, found.line))
        if len(callers) >= _MAX_CALLERS:
            break
    if not callers:
        return ()
    return (Origin("raised", "called", (*reversed(callers), (local, raised.line))),)


def _callers(
    frames: list[tuple[Frame, _Span | None, str | None]],
    raised: Frame,
    local: Path,
    index: TreeIndex,
    sources: dict[Path, list[str]],
    max_file_size: int,
) -> set[int]:
    """The lines of `local` the frames outside the raising one show (the calls the run went
    through on its way there: the call in a `with mesh:` block of a function raising
    elsewhere), as `--from-log` keeps them; each line and segment checked as the raising
    frame's are, a frame the file no longer shows left out."""
    at = max((i for i, (f, _, _) in enumerate(frames) if f == raised), default=0)
    lines = set()
    for frame, span, segment in frames[:at]:
        if frame.line == raised.line or is_library(frame):
            continue
        try:
            if index.map(frame.path) != local:
                continue
            placed, found = locate((frame,), index, sources, max_file_size)
            _columns(sources[placed], found, span, segment, placed)
        except LocateError:
            continue
        lines.add(found.line)
    return lines


def _columns(
    local_lines: list[str],
    frame: Frame,
    span: _Span | None,
    segment: str | None,
    local: Path,
) -> tuple[int, int] | None:
    """The recorded columns, when the call fits on its line and the line still shows it there."""
    if span is None:
        return None
    end_line, column, end_column = span
    text = local_lines[frame.line - 1]
    if end_line != frame.line:
        return None
    if segment is not None and text[column:end_column] != segment:
        raise LocateError(
            f"{local.as_posix()} has changed since the run: line {frame.line} no longer has "
            f"{segment[:60]!r} at column {column + 1}"
        )
    return (column, end_column) if column < end_column else None


# a line that builds a concrete mesh: `jax.make_mesh(`, `Mesh(`, `jax.sharding.Mesh(`
_BUILDS_MESH = re.compile(r"(?<![\w.])(?:[\w.]+\.)?(?:make_mesh|Mesh)\s*\(")


def _line_of(
    path: Path, line: int, max_file_size: int, sources: dict[Path, list[str]]
) -> str:
    """The text of `line` of a file of the tree, read once (as `locate` reads them)."""
    if path not in sources:
        try:
            sources[path] = source_lines(path, max_file_size)
        except ReadError:
            return ""
    lines = sources[path]
    return lines[line - 1] if 0 < line <= len(lines) else ""


_MAX_READS = 64
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
_READS_ENVIRONMENT = re.compile(r"\benviron\b|\bgetenv\b")


def _environment(
    value: Any, index: TreeIndex, sources: dict[Path, list[str]], max_file_size: int
) -> list[EnvironmentRead]:
    """A process record's environment reads (jaxfix/evidence/recorder.py), each placed in
    the tree at a line that still reads the environment and names the variable in quotes (a
    forged read elsewhere is none)."""
    if not isinstance(value, list):
        return []
    found = []
    for read in value[:_MAX_READS]:
        if not isinstance(read, dict):
            continue
        variable, held, test = read.get("variable"), read.get("value"), read.get("test")
        if not isinstance(variable, str) or not _VARIABLE.fullmatch(variable):
            continue
        if held is not None and (not isinstance(held, str) or len(held) > 32):
            continue
        if test is not None and (not isinstance(test, str) or len(test) > 300):
            continue
        origins = _origins({"read": {"built": [read]}}, index, sources, max_file_size)
        if not origins:
            continue
        path, line = origins[0].frames[-1]
        text = _line_of(path, line, max_file_size, sources)
        if _READS_ENVIRONMENT.search(text) and any(
            f"{quote}{variable}{quote}" in text for quote in "'\""
        ):
            found.append(EnvironmentRead(variable, held, path, line, test))
    return found


def _largest_mesh(
    value: Any,
    number: int,
    index: TreeIndex,
    sources: dict[Path, list[str]],
    max_file_size: int,
) -> DevicesSeen | None:
    """A process record's largest concrete mesh (jaxfix/evidence/recorder_writer.py), when its
    innermost frame is placed in the tree, still reads as the run saw it, and is a line that
    builds a mesh (a forged frame elsewhere shows nothing)."""
    if not isinstance(value, dict):
        return None
    try:
        count = _int(value.get("device_count"), "a device count", 1)
    except _Bad:
        return None
    origins = _origins(
        {"largest": {"built": value.get("built")}}, index, sources, max_file_size
    )
    if not origins:
        return None
    path, line = origins[0].frames[-1]
    if not _BUILDS_MESH.search(_line_of(path, line, max_file_size, sources)):
        return None
    return DevicesSeen(
        count, False, "a concrete mesh the run built", number, (path, line)
    )


def _devices_seen(
    built: list[DevicesSeen],
    failures: list[Failure],
    max_file_size: int,
    sources: dict[Path, list[str]],
) -> DevicesSeen | None:
    """The devices the run shows the program holds: exactly the count jax.make_mesh's message
    names, when the failure's innermost frame in the tree is a line calling `make_mesh` (a
    forged message elsewhere is no count), the fewest of several; else at least the devices
    of the largest concrete mesh its code built."""
    exact: list[DevicesSeen] = []
    for failure in failures:
        found = _MAKE_MESH_DEVICES.search(failure.message)
        if found is None or failure.at is None:
            continue
        if "make_mesh" in _line_of(*failure.at, max_file_size, sources):
            exact.append(
                DevicesSeen(
                    int(found.group(1)),
                    True,
                    "jax.make_mesh's message raised",
                    failure.record,
                    failure.at,
                )
            )
    if exact:
        return min(exact, key=lambda seen: seen.count)
    return max(built, key=lambda seen: seen.count, default=None)


def read_evidence(
    data: bytes, files: list[Path], max_file_size: int = DEFAULT_MAX_FILE_SIZE
) -> EvidenceReading:
    """`max_file_size`: the largest source file read to check a record's line."""
    reading = EvidenceReading()
    index = TreeIndex(files, max_file_size)
    sources: dict[Path, list[str]] = {}
    found: dict[
        tuple[Path, int, str, tuple[int, int] | None],
        list[
            tuple[int, Facts, tuple[int, ...] | None, tuple[Origin, ...], Path | None]
        ],
    ] = {}
    callers: dict[tuple[Path, int, str, tuple[int, int] | None], set[int]] = {}
    tests: dict[tuple[Path, int, str, tuple[int, int] | None], set[str | None]] = {}
    built: list[DevicesSeen] = []  # the largest concrete mesh of each process
    arguments: dict[str, None] = {}  # the processes' command-line arguments, in order
    environment: dict[EnvironmentRead, None] = {}  # the variables their code read
    lines = data.split(b"\n")
    if len(lines) > MAX_RECORDS + 1:
        reading.errors.append(
            f"more than {MAX_RECORDS} records: only the first {MAX_RECORDS} are read"
        )
        lines = lines[:MAX_RECORDS]
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = load_json(raw.decode("utf-8"))
            if not isinstance(record, dict) or record.get("schema") != SCHEMA:
                raise _Bad(f"not a {SCHEMA} record")
            kind = record.get("kind")
            test = _str(record, "test", optional=True, limit=2000)
            if kind == "process":
                version = _str(record, "jax_version", optional=True, limit=100)
                if version:
                    reading.jax_versions.add(version)
                largest = _largest_mesh(
                    record.get("largest_mesh"), number, index, sources, max_file_size
                )
                if largest is not None:
                    built.append(largest)
                arguments.update(dict.fromkeys(_arguments(record.get("argv"))))
                environment.update(
                    dict.fromkeys(
                        _environment(
                            record.get("environment"), index, sources, max_file_size
                        )
                    )
                )
                continue
            message = _str(record, "message") or ""
            if kind == "failure":
                reading.failures.append(
                    Failure(
                        _str(record, "exception", limit=300) or "",
                        message[:300],
                        test,
                        number,
                        *_inside_failure(record, index),
                    )
                )
                continue
            if kind != "error":
                raise _Bad(f"unknown kind {kind!r}")
            code = _str(record, "code", limit=10) or ""
            if code not in rules():
                raise _Bad(f"unknown rule code {code!r}")
        except (UnicodeDecodeError, DataError, _Bad) as error:
            reason = (
                "not JSON"
                if isinstance(error, UnicodeDecodeError)
                or (isinstance(error, DataError) and error.line is not None)
                else str(error)
            )
            reading.errors.append(f"record {number}: {reason}: skipped")
            continue
        version = (
            record.get("jax_version")
            if isinstance(record.get("jax_version"), str)
            else None
        )
        try:
            facts = _facts(code, message, record.get("meshes"))
            frames = _frames(record.get("frames"))
            local, frame = locate(
                tuple(f for f, _, _ in frames), index, sources, max_file_size
            )
            _, span, segment = next(
                item for item in reversed(frames) if item[0] == frame
            )
            columns = _columns(sources[local], frame, span, segment, local)
            called = _called_from(frames, frame, local, index, sources, max_file_size)
            origins = _origins(
                record.get("meshes"),
                index,
                sources,
                max_file_size,
                facts,
                test,
                called[0].frames if called else ((local, frame.line),),
            )
            origins += _context_origins(
                record.get("contexts"), index, sources, max_file_size
            )
            origins += called
            outer = _callers(frames, frame, local, index, sources, max_file_size)
        except (_Bad, LocateError) as error:
            problem = (
                str(error)
                .replace("since the log", "since the run")
                .replace("the log shows", "the run shows")
            )
            reading.raised.append(
                Raised(
                    code,
                    number,
                    message[:300],
                    test,
                    problem=problem,
                    inside=_inside(record, index),
                )
            )
            continue
        if version:
            reading.jax_versions.add(version[:100])
        reading.raised.append(
            Raised(
                code,
                number,
                message[:300],
                test,
                local,
                frame.line,
                columns,
                inside=_inside(record, index),
            )
        )
        cwd = record.get("cwd")
        if not isinstance(cwd, str) or len(cwd) > 4096:
            cwd = None
        callers.setdefault((local, frame.line, code, columns), set()).update(outer)
        tests.setdefault((local, frame.line, code, columns), set()).add(test)
        found.setdefault((local, frame.line, code, columns), []).append(
            (
                number,
                facts,
                parse_jax_version(version),
                origins,
                Path(cwd) if cwd and os.path.isabs(cwd) else None,
            )
        )
    devices = _devices_seen(built, reading.failures, max_file_size, sources)
    by_file: dict[Path, list[Evidence]] = {}
    for (local, line, code, columns), seen in sorted(
        found.items(),
        key=lambda item: (
            item[0][0].as_posix(),
            item[0][1],
            item[0][2],
            item[0][3] or (-1, -1),
        ),
    ):
        distinct = tuple(dict.fromkeys(f for _, f, _, _, _ in seen))
        versions = {v for _, _, v, _, _ in seen if v is not None}
        version = (
            max(versions) if versions else None
        )  # one run has one JAX; several: the newest
        by_file.setdefault(local, []).append(
            Evidence(
                code,
                line,
                tuple(sorted(n for n, *_ in seen)),
                distinct,
                columns,
                version,
                "evidence record",
                tuple(dict.fromkeys(o for *_, origins, _ in seen for o in origins)),
                cwds=tuple(dict.fromkeys(c for *_, c in seen if c is not None)),
                callers=tuple(sorted(callers[(local, line, code, columns)])),
                devices=devices,
                arguments=tuple(arguments)[:_MAX_ARGUMENTS],
                environment=tuple(
                    r
                    for r in environment
                    if r.during(tests[(local, line, code, columns)])
                )[:_MAX_READS],
            )
        )
    reading.evidence = {path: tuple(items) for path, items in by_file.items()}
    if len(reading.errors) > _MAX_ERRORS_SHOWN:
        hidden = len(reading.errors) - _MAX_ERRORS_SHOWN
        reading.errors = [
            *reading.errors[:_MAX_ERRORS_SHOWN],
            f"... and {hidden} more unusable records",
        ]
    return reading
