"""Replace a file's bytes atomically: all or nothing, mode kept, never through a stale read."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class WriteError(Exception):
    pass


def write_atomically(path: Path, data: bytes, *, expected: bytes) -> None:
    """Write `data` to `path` via a temp file in the same directory and os.replace.

    Symlinks are written at their target. If the file no longer holds `expected` (changed since
    it was read), nothing is written.
    """
    target = Path(os.path.realpath(path))
    try:
        with open(target, "rb") as handle:
            if handle.read() != expected:
                raise WriteError("the file changed while jaxfix was running; not overwritten")
        mode = stat.S_IMODE(os.stat(target).st_mode)
        if not mode & stat.S_IWUSR or not os.access(target, os.W_OK):
            raise WriteError("permission denied (read-only file)")
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".jaxfix-tmp")
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise WriteError(error.strerror or str(error)) from None
        raise
