"""What a file's result depends on outside the file.

The engine (jaxfix/analysis/ast_engine) is one per process and run (jaxfix/check/run.py), over
the run's files (where the callers of a function are looked for), so a module imported by many
files is read once. What a module's answers used is its `project.record` (`recorded`): the
files parsed, each with the SHA-256 of its bytes, the paths imports were looked for at, and
the searches of the run's word index, each with the files it found and the run's files as the
index read them (`RunFiles`): the cache (jaxfix/cache/store.py) checks a search again only against
the files that changed since. The engine reads a module once and may answer from it minutes
later, so a digest is only taken of a file that has not changed since the engine was created:
hashed later, a file edited in between would give the new bytes' digest to an answer computed
from the old ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.ground.bounded_data import load_json
from jaxfix.ground.diagnostics import Dependency, WordLookup
from jaxfix.sources.file_io import ReadError, open_regular, read_regular
from jaxfix.sources.paths import PATH_STATES, path_state
from jaxfix.sources.words import same_code

if TYPE_CHECKING:
    from jaxfix.analysis.ast_engine.project import Project

# Timestamps this much older than the index are older than anything it read, even on file
# systems that keep them coarsely (FAT: 2 s, HFS+: 1 s) or behind the clock (Linux: a tick).
SETTLED_NS = 2_000_000_000
_MAX_CODE_BYTES = 4 * 1024 * 1024  # as the engine reads a module


def signature(status: os.stat_result) -> tuple[int, int, int, int]:
    """What changes whenever a file's bytes do: size, mtime, ctime (which no tool sets back) and
    inode (replaced by rename)."""
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino


def snapshot(
    paths: Iterable[Path],
    index_created_ns: int,
    layout: Mapping[Path, str] | None = None,
) -> tuple[Dependency, ...]:
    """The files an analysis used, by path, each with its digest if its bytes are those the
    index read: last changed well before the index was created, and steady while hashed; then
    the paths its imports were looked for at (`layout`: path -> what the index saw there), each
    with what it is (`Dependency.digest` is then one of `PATH_STATES`), unvouched (None) when
    that already differs from what the index saw."""
    files = tuple(_snapshot(path, index_created_ns) for path in sorted(paths))
    places = tuple(
        Dependency(path, state if path_state(path) == state else None)
        for path, state in sorted((layout or {}).items())
    )
    return files + places


def _snapshot(path: Path, index_created_ns: int) -> Dependency:
    try:
        with open_regular(path) as handle:
            before = os.fstat(handle.fileno())
            digest = hashlib.sha256(handle.read()).hexdigest()
            after = os.fstat(handle.fileno())
    except (OSError, ReadError):
        return Dependency(path, None)
    steady = signature(before) == signature(after)
    if (
        not steady
        or max(after.st_mtime_ns, after.st_ctime_ns) + SETTLED_NS > index_created_ns
    ):
        return Dependency(path, None)
    return Dependency(path, digest, signature(after))


def unchanged(dependency: Dependency) -> bool:
    """Whether the file still holds the bytes `dependency` was computed from. The signature
    settles it when it is the same: it was taken well after the file's last change (see
    `snapshot`), so any change since moved the ctime. Otherwise (touched, copied back, on a
    file system without stable inodes) the content decides. Only a regular file is read: a
    forged cache entry naming a FIFO or a device must not hang the run."""
    if dependency.digest in PATH_STATES:
        return path_state(dependency.path) == dependency.digest
    try:
        status = os.stat(dependency.path)
    except (OSError, ValueError):
        return False
    if not stat.S_ISREG(status.st_mode):
        return False
    if dependency.signature is not None and signature(status) == dependency.signature:
        return True
    digest = hashlib.sha256()
    try:
        with open_regular(dependency.path) as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except (OSError, ReadError):
        return False
    return digest.hexdigest() == dependency.digest


@dataclass(frozen=True)
class RunFiles:
    """The run's files as the engine's word index read them, as the run named them, sorted:
    each with its `signature` then, None when jaxfix cannot vouch that the bytes read are those
    with that signature (unreadable, changed while read, or changed too shortly before the engine
    was created: see `snapshot`). `digest` names it (a cache entry refers to it by that)."""

    digest: str
    entries: tuple[tuple[Path, tuple[int, int, int, int] | None], ...]

    def encode(self) -> bytes:
        return _encode_entries(self.entries)


def _encode_entries(
    entries: tuple[tuple[Path, tuple[int, int, int, int] | None], ...],
) -> bytes:
    return json.dumps(
        [[os.fspath(path), list(sig) if sig else None] for path, sig in entries]
    ).encode()


def decode_run_files(data: bytes) -> RunFiles:
    """A `RunFiles` from `encode`'s bytes (its digest is theirs); ValueError/TypeError if they
    are not that."""
    entries = []
    for item in load_json(data):
        path, sig = item
        if not (isinstance(path, str) and os.path.isabs(path)):
            raise ValueError("run files: bad path")
        if sig is not None and not (
            isinstance(sig, list) and len(sig) == 4 and all(type(n) is int for n in sig)
        ):
            raise ValueError("run files: bad signature")
        entries.append((Path(path), None if sig is None else tuple(sig)))
    return RunFiles(hashlib.sha256(data).hexdigest(), tuple(entries))


_run_files: weakref.WeakKeyDictionary[Project, RunFiles] = weakref.WeakKeyDictionary()
_known_run_files: dict[str, RunFiles] = {}


def run_files_of(project: Project) -> RunFiles:
    """The project's files as its word index read them (computed once per project)."""
    found = _run_files.get(project)
    if found is None:
        entries = []
        for path in project.files:
            sig = project.files_seen.get(path)
            if (
                sig is not None
                and max(sig[1], sig[2]) + SETTLED_NS > project.created_ns
            ):
                sig = None  # a change in the same clock tick would keep this signature
            entries.append((project.named[path], sig))
        ordered = tuple(sorted(entries, key=lambda e: os.fspath(e[0])))
        found = RunFiles(hashlib.sha256(_encode_entries(ordered)).hexdigest(), ordered)
        _run_files[project] = found
        _known_run_files[found.digest] = found
    return found


def known_run_files(digest: str) -> RunFiles | None:
    """A `RunFiles` this process made (the cache writes it beside the entries naming it)."""
    return _known_run_files.get(digest)


def _given_is_on_disk(dependency: Dependency, given: bytes) -> bool:
    """Whether `given` is the code of the file's bytes `dependency` vouches for: a notebook is
    given as its code cells (jaxfix/sources/words.py `same_code`)."""
    try:
        raw = read_regular(dependency.path, _MAX_CODE_BYTES)
    except ReadError:
        return False
    return hashlib.sha256(raw).hexdigest() == dependency.digest and same_code(
        dependency.path, given, raw
    )


def recorded(
    project: Project, own: Path
) -> tuple[tuple[Dependency, ...], tuple[WordLookup, ...]]:
    """What the answers about the module at `own` used (`project.record`, since
    `Engine.begin`): the files read (not `own` itself: the cache keys on its bytes) and the
    places imports were looked for at, as `snapshot` gives them, and the word searches. A file
    given as source (`add_source`) whose bytes differ from the disk's, or a search that found a
    file not among the run's, cannot be checked by a later run: unvouched (not cached).
    Nothing when the engine was not asked about `own` (its last `begin` was another module)."""
    record = project.record
    own = own.resolve()
    if project.current != own:
        return (), ()
    files = {p for p in record.files if p != own}
    dependencies = list(snapshot(files, project.created_ns, dict(record.places)))
    for index, dependency in enumerate(dependencies):
        given = project.given(dependency.path)
        if (
            given is not None
            and dependency.digest is not None
            and dependency.digest not in PATH_STATES
            and hashlib.sha256(given).hexdigest() != dependency.digest
            and not _given_is_on_disk(dependency, given)
        ):
            dependencies[index] = Dependency(dependency.path, None)
    lookups: list[WordLookup] = []
    if record.lookups:
        every = run_files_of(project)
        for lookup in sorted(record.lookups, key=lambda k: k.words):
            named = set()
            for holder in lookup.holders:
                name = project.named.get(holder)
                if name is None:
                    dependencies.append(Dependency(holder, None))
                else:
                    named.add(name)
            lookups.append(WordLookup(lookup.words, frozenset(named), every.digest))
    return tuple(dependencies), tuple(lookups)
