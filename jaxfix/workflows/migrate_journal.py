"""What `jaxfix migrate` is about to write in a repository, kept in the repository's git directory.

A run killed mid-repository (a lost Dask worker, a killed pool process, the machine going down)
cannot put back what it wrote, and the next run would find the work tree changed. So before each
write the journal gets the file and the hashes of what it held and of what jaxfix writes, on
disk before the write starts. The next run reads it (`Unfinished`): uncommitted changes that are
exactly those (every changed file journaled, each holding what the run found there or a fix it
wrote) are jaxfix's own and are put back to HEAD; anything else is someone's edit and stays.

The journal is a file of the git directory (`git rev-parse --git-path`), so it is never in a
commit, a patch or `git status`; it is opened without following symlinks.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from jaxfix.ground.bounded_data import load_json
from jaxfix.ground.diagnostics import FileResult
from jaxfix.sources.file_io import ReadError, read_regular

NAME = "jaxfix-migrate-journal"
_MAX_SIZE = 64 * 1024 * 1024  # one line per write: far beyond any repository's


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Unfinished:
    """A journal a run left: the commit it started from, and per file (relative, POSIX) the hash
    of every content it found or wrote there."""

    base: str
    contents: dict[str, frozenset[str]]


class Journal:
    """The journal of one run in one repository, created (replacing a stale one) when opened."""

    def __init__(self, path: Path, repo: Path, base: str) -> None:
        self.path, self.repo = path, repo
        fd = os.open(
            path,
            os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW,
            0o600,
        )
        self._file = os.fdopen(fd, "w", encoding="utf-8")
        self._append({"base": base})

    def record(self, result: FileResult) -> None:
        """Called before `result.fixed` is written over `result.source`."""
        assert result.source is not None and result.fixed is not None
        name = Path(os.path.realpath(result.path)).relative_to(self.repo).as_posix()
        self._append(
            {
                "file": name,
                "found": digest(result.source),
                "wrote": digest(result.fixed),
            }
        )

    def _append(self, entry: dict[str, str]) -> None:
        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self, *, finished: bool) -> None:
        """`finished`: the run put back or committed all it wrote, so the journal goes; else it
        stays for the next run to compare the work tree with."""
        self._file.close()
        if finished:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass


def read_journal(path: Path) -> Unfinished | str | None:
    """The journal a killed run left at `path`; None if there is none; why it cannot be used
    otherwise. Its last line may be cut off (the run was killed while writing it, so the write it
    announces had not started): it is left out."""
    try:
        data = read_regular(path, _MAX_SIZE, follow_symlinks=False)
    except ReadError as error:
        if not os.path.lexists(path):
            return None
        return f"jaxfix's journal {path.name} cannot be read: {error}"
    complete = data.split(b"\n")[:-1]  # what follows the last line break is cut off
    try:
        entries = [load_json(line) for line in complete]
        base = entries[0]["base"]
        contents: dict[str, set[str]] = {}
        for entry in entries[1:]:
            found = contents.setdefault(str(entry["file"]), set())
            found.update((str(entry["found"]), str(entry["wrote"])))
    except (ValueError, LookupError, TypeError):
        return f"jaxfix's journal {path.name} is not one it wrote"
    if not isinstance(base, str):
        return f"jaxfix's journal {path.name} is not one it wrote"
    return Unfinished(base, {name: frozenset(h) for name, h in contents.items()})
