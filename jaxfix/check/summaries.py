"""What each module's code reads, kept for one run and shared by its processes.

A search for a function's callers (jaxfix/analysis/ast_engine/evaluate.py) parses every module
of the run whose words hold the function's name, to read the calls of it there; most hold the
word only where the function is defined or named otherwise (a test method `testFoo` is named
in many test modules, called in none). Parsing a module is most of what such a question costs,
and each process of a run (the workers, each replacement) parsed the same modules again. Once
any process of the run has parsed a module, the names its code reads are written here, under
the digest of its bytes; a later search of the same bytes for a name they do not read skips
the module without parsing it (`Project.module_loading`). What the search finds is the same
(nothing there), and its answer depends on the same bytes.

The same entry holds the attributes the module stores (`x.name = ...`): a search for the
places an attribute is set from outside its class (evaluate.py) skips, unparsed, a module that
stores none of that name.

An entry is named by the digest of the bytes it was made from, so it cannot be stale: changed
bytes have another digest. The directory is the run's own (made private, removed at its end);
an entry that does not read as one (truncated, foreign) is ignored and the module parsed.
A run killed before its end (SIGKILL) leaves its directory: the next run removes it
(jaxfix/ground/run_directories.py).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

_HEADER = b"jaxfix-reads 2\n"
_STORED = "."  # the line of an attribute the module stores: `.name`
# what the directory holds: entries named by a digest, writes not yet renamed into place
_HOLDS = re.compile(r"[0-9a-f]+|\.part-[a-z0-9_]+")


class Summaries:
    """The run's summaries in `directory` (made on first use, in the system's temporary
    directory; removed by `close` in the process that made it)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self._owner = os.getpid() if directory is None else None

    def __getstate__(self) -> dict[str, object]:
        # a spawned worker shares the directory (made before the workers start)
        return {"directory": self.directory}

    def __setstate__(self, state: dict[str, object]) -> None:
        directory = state["directory"]
        self.directory = directory if isinstance(directory, Path) else None
        self._owner = None

    def prepare(self) -> None:
        """Make the directory now (before workers are forked or spawned)."""
        if self.directory is None and self._owner == os.getpid():
            from jaxfix.cache import warm_path
            from jaxfix.ground.run_directories import make_run_directory

            self.directory = make_run_directory("reads", _HOLDS)
            warm_path.not_an_input(self.directory)  # a recorded run never depends on it

    def _path(self, digest: bytes) -> Path | None:
        self.prepare()
        return None if self.directory is None else self.directory / digest.hex()

    def get(self, digest: bytes) -> tuple[frozenset[str], frozenset[str]] | None:
        """What the module of these bytes reads, and the attributes it stores."""
        path = self._path(digest)
        if path is None:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if not data.startswith(_HEADER) or not data.endswith(b"\n"):
            return None  # not an entry (a write cut short is never renamed into place)
        try:
            text = data[len(_HEADER) : -1].decode("utf-8")
        except UnicodeDecodeError:
            return None
        lines = text.split("\n") if text else []
        reads = [line for line in lines if not line.startswith(_STORED)]
        stores = [line[1:] for line in lines if line.startswith(_STORED)]
        if not all(name.isidentifier() for name in (*reads, *stores)):
            return None
        return frozenset(reads), frozenset(stores)

    def put(self, digest: bytes, reads: frozenset[str], stores: frozenset[str]) -> None:
        path = self._path(digest)
        if path is None or path.exists():
            return
        data = (
            _HEADER
            + "".join(
                [
                    *(f"{name}\n" for name in sorted(reads)),
                    *(f"{_STORED}{name}\n" for name in sorted(stores)),
                ]
            ).encode()
        )
        try:
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
            with os.fdopen(handle, "wb") as written:
                written.write(data)
            os.replace(temporary, path)  # whole or not at all, for the other processes
        except OSError:
            return  # not kept: the module is parsed where it is searched

    def close(self) -> None:
        """Remove the directory (only in the process that made it)."""
        if self._owner == os.getpid() and self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
