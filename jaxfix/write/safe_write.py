"""Every write jaxfix makes, all or nothing: a fixed source file, a cache entry, a report.

Two entry points share one temp-file discipline (short `.<pid>-<random>.jaxfix-tmp` names in the
target's directory, fsync'd, removed on any failure or interrupt, stale ones swept by the next
run):

- `write_file` for files jaxfix owns: temp file, fsync, `os.replace`. A file that checks itself
  when read (a cache entry, by its checksum; a record named by its digest) is not fsync'd: a
  crash that leaves it short or empty makes it a miss, and a cold run writes one per file.
- `replace_source` for the user's files: the fix replaces the file only if it still holds what
  was read, checked immediately before the swap and again after it; an edit that lands in
  between is put back and reported, a file deleted meanwhile is never recreated. Hard links,
  owner, group, mode and extended attributes are kept.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import re
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jaxfix.ground.interrupts import signals_held

TEMP_SUFFIX = ".jaxfix-tmp"
_TEMP_NAME = re.compile(r"\.(\d+)-[0-9a-f]{6}\.jaxfix-tmp\Z")
# How long after its last write a run looks at the replaced files again: a writer that opened a
# file before the swap and was descheduled before writing is caught unless it waits longer.
_SETTLE_SECONDS = 0.05


class WriteError(Exception):
    """The file was left as it was (or put back); the message says why."""


def _open_temp(directory: Path) -> tuple[int, Path]:
    """A new, empty, private file with a short name whatever the target's name length."""
    import secrets  # imported when first writing

    while True:
        temp = directory / f".{os.getpid()}-{secrets.token_hex(3)}{TEMP_SUFFIX}"
        try:
            return os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600
            ), temp
        except FileExistsError:
            continue


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _os_error(error: OSError) -> WriteError:
    return WriteError(error.strerror or str(error))


def write_file(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace (or create) a file jaxfix owns; mode as for a new file (umask applies).
    `durable` False: not fsync'd, for a file whose reader rejects what a crash may leave.

    Raises OSError: callers decide whether a failed write matters (a cache entry's does not).
    """
    umask = _current_umask()
    with signals_held():
        fd, temp = _open_temp(path.parent)
        try:
            try:
                _write_all(fd, data)
                os.fchmod(fd, 0o666 & ~umask)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
        except BaseException:
            _unlink_quietly(temp)
            raise


def _current_umask() -> int:
    """Read from /proc: os.umask() would have to set it, which races with other threads."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


# --- the user's files -------------------------------------------------------------------------

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@functools.cache
def _renameat2() -> Any:
    """libc's renameat2, loaded at the first exchange (ctypes costs a warm run ~2 ms to import)."""
    import ctypes

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = (
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    )
    function.restype = ctypes.c_int
    return function


def _exchange(a: Path, b: Path) -> bool:
    """Swap two names atomically (Linux renameat2 RENAME_EXCHANGE); False where unsupported.

    Raises FileNotFoundError if either name is gone: a deleted file is never recreated.
    """
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if (
        renameat2(
            _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE
        )
        == 0
    ):
        return True
    import ctypes

    code = ctypes.get_errno()
    if code in (
        errno.EINVAL,
        errno.ENOSYS,
        errno.EOPNOTSUPP,
    ):  # e.g. a filesystem without it
        return False
    raise OSError(code, os.strerror(code), str(b))


def _read_fd(fd: int) -> bytes:
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


class _Original:
    """The file as read, held open: its identity and content say whether anyone touched it."""

    def __init__(self, fd: int, expected: bytes) -> None:
        self.fd = fd
        self.expected_hash = hashlib.sha256(expected).digest()
        self.identity = self._identity(os.fstat(fd))

    @staticmethod
    def _identity(st: os.stat_result) -> tuple[int, ...]:
        return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns

    def content(self) -> bytes:
        return _read_fd(self.fd)

    def unchanged(self) -> bool:
        return (
            self._identity(os.fstat(self.fd)) == self.identity
            and hashlib.sha256(self.content()).digest() == self.expected_hash
        )

    def still_at(self, target: Path) -> bool:
        """`target` still names this file (not deleted, not replaced by another) and it is unchanged."""
        try:
            current = os.stat(target)
        except FileNotFoundError:
            raise WriteError(_DELETED) from None
        return self._identity(current) == self.identity and self.unchanged()


_DELETED = "the file was deleted while jaxfix was running; not recreated"
_CHANGED = "the file changed while jaxfix was running; not overwritten"
_RESTORED = "the file changed while jaxfix was writing it; the other edit was restored and the fix not applied"


def real_roots(paths: Iterable[Path]) -> tuple[str, ...]:
    """The real paths a run's writes must stay in: taken before anything else can run, so that
    a symlink made meanwhile cannot move them."""
    return tuple(os.path.realpath(path) for path in paths)


def resolves_within(path: Path, roots: tuple[str, ...]) -> bool:
    """Whether `path`, its links followed now, is in one of `roots` (`real_roots`)."""
    return _inside(os.path.realpath(path), roots)


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    return any(
        path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots
    )


_OUT_OF_TREE = "a symbolic link leads out of the tree; not written"


def replace_source(
    path: Path,
    data: bytes,
    *,
    expected: bytes,
    late_checks: list[LateCheck] | None = None,
    within: tuple[str, ...] = (),
) -> None:
    """Write `data` over `path` (at a symlink's target) if it still holds `expected`.

    Raises WriteError when nothing was written (or the write was undone). With `late_checks`,
    the replaced file is kept open there for `confirm_writes`, so that an edit reaching it a
    moment after the swap (a writer that opened it before) is still found and put back. With
    `within` (`real_roots`), the file is resolved now, at the write, and again once open: a
    symlink made since the files were listed cannot lead the write out of those roots.
    """
    target = Path(os.path.realpath(path))
    if within and not _inside(str(target), within):
        raise WriteError(_OUT_OF_TREE)
    with signals_held():
        try:
            fd = os.open(
                target, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
            )
        except OSError as error:
            if error.errno == errno.ENOENT:
                raise WriteError(_DELETED) from None
            if error.errno == errno.ELOOP:  # made a symlink since it was resolved
                raise WriteError(_CHANGED) from None
            raise _os_error(error) from None
        kept = False
        try:
            if within and not _opened_inside(fd, target, within):
                raise WriteError(_OUT_OF_TREE)
            original = _Original(fd, expected)
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise WriteError("not a regular file")
            if not original.unchanged():
                raise WriteError(_CHANGED)
            if not st.st_mode & stat.S_IWUSR or not os.access(target, os.W_OK):
                raise WriteError("permission denied (read-only file)")
            if st.st_nlink > 1:
                _write_in_place(target, data, original)
            else:
                _swap_in(target, data, original, st)
                if late_checks is not None:
                    late_checks.append(LateCheck(path, target, data, original, st))
                    kept = True
        except OSError as error:
            raise _os_error(error) from None
        finally:
            if not kept:
                os.close(fd)


def _opened_inside(fd: int, target: Path, within: tuple[str, ...]) -> bool:
    """The open file is the one `target` names inside the roots: a directory on the way
    swapped for a symlink after `realpath` is caught by where the file really was opened."""
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # no /proc: the path resolved again instead
        opened = os.path.realpath(target)
    return opened == str(target) and _inside(opened, within)


@dataclass
class LateCheck:
    """A replaced file, still open, to look at once more when the run's writes are done."""

    path: Path
    target: Path
    data: bytes
    original: _Original
    st: os.stat_result

    def confirm(self) -> str | None:
        """None if the replaced file stayed as it was; else it is restored and the reason returned."""
        try:
            if self.original.unchanged():
                return None
            _restore(self.target, self.data, self.original, self.st)
            return _RESTORED
        except OSError as error:
            return f"{_RESTORED.split(';')[0]}; restoring it failed: {error.strerror or error}"
        finally:
            os.close(self.original.fd)


def confirm_writes(checks: list[LateCheck]) -> dict[Path, str]:
    """Look at every replaced file once more, after a moment; the paths whose fix was undone."""
    if not checks:
        return {}
    time.sleep(_SETTLE_SECONDS)
    undone = {}
    with signals_held():
        for check in checks:
            reason = check.confirm()
            if reason is not None:
                undone[check.path] = reason
        checks.clear()
    return undone


def _write_in_place(target: Path, data: bytes, original: _Original) -> None:
    """A hard-linked file keeps its inode (every name sees the fix): rewrite it, fsync'd.

    Not atomic against a crash mid-write (the price of keeping the links); still checked first.
    """
    with open(target, "r+b") as handle:
        if not original.still_at(target):
            raise WriteError(_CHANGED)
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def _swap_in(
    target: Path, data: bytes, original: _Original, st: os.stat_result
) -> None:
    temp = _filled_temp(target, data, original.fd, st)
    try:
        if not original.still_at(target):
            raise WriteError(_CHANGED)
        try:
            exchanged = _exchange(temp, target)
        except FileNotFoundError:
            raise WriteError(_DELETED) from None
        if exchanged:
            # `temp` now names the original. An edit that reached it after the check is put back.
            if not original.unchanged():
                _exchange(temp, target)
                _carry_over(temp, data, target)
                raise WriteError(_RESTORED)
        else:
            os.replace(temp, target)
    except BaseException:
        _unlink_quietly(temp)
        raise
    _unlink_quietly(temp)
    if not original.unchanged():  # written through a handle opened before the swap
        _restore(target, data, original, st)
        raise WriteError(_RESTORED)


def _filled_temp(
    target: Path, data: bytes, original_fd: int, st: os.stat_result
) -> Path:
    fd, temp = _open_temp(target.parent)
    try:
        try:
            _write_all(fd, data)
            _copy_metadata(original_fd, fd, st)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _unlink_quietly(temp)
        raise
    return temp


def _restore(
    target: Path, data: bytes, original: _Original, st: os.stat_result
) -> None:
    """Put the original file, with someone's late edit, back in place of the fixed one."""
    temp = _filled_temp(target, original.content(), original.fd, st)
    try:
        if not _exchange(temp, target):
            os.replace(temp, target)
        elif _read_prefix(temp, len(data)) == data:
            _carry_over(temp, data, target)
        else:  # the fixed file was replaced meanwhile too: the newest version stays
            _exchange(temp, target)
    finally:
        _unlink_quietly(temp)


def _read_prefix(path: Path, size: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(size)


def _carry_over(displaced: Path, data: bytes, target: Path) -> None:
    """Appends that reached the fixed version while it was in place go to the restored file,
    including those landing while it is being removed (read again after the unlink)."""
    try:
        fd = os.open(displaced, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        carried = len(data)
        for unlinked in (False, True):
            if unlinked:
                _unlink_quietly(displaced)
            content = _read_fd(fd)
            if content[carried:] and content.startswith(data):
                with open(target, "ab") as handle:
                    handle.write(content[carried:])
                carried = len(content)
    finally:
        os.close(fd)


def _copy_metadata(source_fd: int, fd: int, st: os.stat_result) -> None:
    """Owner and group (when permitted), then mode (chown may clear set-id bits), then xattrs."""
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except PermissionError:
        try:
            os.fchown(fd, -1, st.st_gid)
        except PermissionError:
            pass
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(source_fd)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(source_fd, name))
        except OSError:
            pass  # e.g. security.* without the privilege to set it


# --- stale temp files ---------------------------------------------------------------------------


def is_stale_temp(name: str) -> bool:
    """A temp file whose writer is gone (killed mid-write: SIGKILL, power loss)."""
    match = _TEMP_NAME.match(name)
    if match is None:
        return False
    pid = int(match[1])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def remove_stale_temps(directories: list[Path]) -> None:
    """Sweep the temp files a killed run left in `directories`."""
    for directory in directories:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if name.endswith(TEMP_SUFFIX) and is_stale_temp(name):
                _unlink_quietly(directory / name)
