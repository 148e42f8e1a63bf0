"""The warm path: a `--check` run whose every input is as an earlier run left it prints that run's
output again, without importing the command line, the rules or the engine (issue 43).

A run of `jaxfix --check` (the command, or `python -m jaxfix`) is recorded when it ends without
an error (`record`, called first, and `finish`, called by jaxfix/cli/main.py): what it wrote to
stdout and stderr, its exit code, and the state of everything it looked at, each path with its
size, mtime, ctime and inode in ns (or that it was absent): the files and directories it read,
listed or asked about (Python's audit events and `Path.stat`), the run's files and the modules
their results used (`Dependency`), the modules jaxfix itself was imported from. The record is
named and keyed by what else decides the output: the arguments, the working directory, the
environment, which streams are terminals and their size, the interpreter and its module path,
the CPUs available. The next run with that key (`replay`) stats every recorded path, and only
when each is exactly as recorded does it print the recorded output and exit with the code;
anything else (a record missing, truncated, of another key, a path changed, added or removed,
a directory's entries changed) runs the normal path, which records again.

Nothing from a record reaches a file: it is only ever printed, and only for `--check` (no
`--diff`, `--dry-run`, `--output-file`, `--add-noqa`, stdin, `--diff-base`, `--from-log`,
`--evidence`; a machine format only when no result carries fixed code). The cache directory may
come from a stranger's pull request, so a record is trusted only for the checkout at hand: to
be taken, it must predict the inode and the ctime (set by the checkout, in ns, never by a
tool) of every file and directory of the run. A record is written only when every recorded path
last changed `SETTLED_NS` before the run began, so that what the run read is what the record
says (a change during the run, or in the same clock tick as the record's, keeps no record).
This module imports only the standard library, and only the pieces `replay` needs.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` costs this module's run a third of its time
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TextIO

    from jaxfix.cache.store import Cache

_MAGIC = b"jaxfix-warm 1\n"
_PREFIX = "warm-"
_MAX_RECORDS = 16
_MAX_BYTES = 64 * 1024 * 1024
SETTLED_NS = 2_000_000_000  # as jaxfix/check/dependencies.py: a clock tick, with margin
# Environment variables that cannot change what a run prints: the rest are part of the key.
_ENV_NOT_IN_KEY = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
# The main command's options that take a value (tests/cache/test_warm_path.py keeps this list
# equal to the command's): the word after one is not a path.
VALUE_OPTIONS = frozenset(
    {
        "--cache-dir",
        "--color",
        "--config",
        "--diff-base",
        "--evidence",
        "--exclude",
        "--explain",
        "--fill-axis",
        "--host-devices",
        "--format",
        "--from-log",
        "--ignore",
        "--jax-version",
        "--jobs",
        "--output-file",
        "--output-format",
        "--platform",
        "--rule-module",
        "--select",
        "--stdin-filename",
        "--target-version",
        "-j",
    }
)
_SUBCOMMANDS = frozenset({"migrate", "repair", "server"})
# A run with one of these writes, reads stdin or git, or prints no check: never recorded.
_NOT_RECORDED = (
    "--add-noqa",
    "--diff",
    "--diff-base",
    "--dry-run",
    "--evidence",
    "--explain",
    "--fix",
    "--from-log",
    "--help",
    "--list-rules",
    "--no-cache",
    "--output-file",
    "--show-files",
    "--show-settings",
    "--stdin-filename",
    "--version",
    "-h",
)
_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
_CACHE_DIR_NAME = ".jaxfix_cache"

_recorder: _Recorder | None = None
# Directories a recording does not note, nor what is in them (`not_an_input`): absolute.
_SCRATCH: list[bytes] = []


def _hash(data: bytes) -> str:
    try:
        from _blake2 import blake2b  # a tenth of hashlib's import
    except ImportError:  # pragma: no cover - every CPython has it
        from hashlib import blake2b
    return blake2b(data, digest_size=32).hexdigest()


def _checked_cache_dir(argv: list[str]) -> tuple[str, list[str]] | None:
    """`_cache_dir` for a `--check` run that may be recorded, else None."""
    if "-" in argv or not ("--check" in argv or "--no-fix" in argv or "check" in argv):
        return None
    for arg in argv:
        if arg == "--":
            break
        if arg.partition("=")[0] in _NOT_RECORDED:
            return None
    return _cache_dir(argv)


def _cache_dir(argv: list[str]) -> tuple[str, list[str]] | None:
    """Where the normal path puts the cache for `argv`, when the arguments alone say it, and the
    paths given (absolute): `--cache-dir`, else `.jaxfix_cache` in the nearest directory upward
    from the first path that holds a project marker (jaxfix/cache/store.py, `cache_dir`). None:
    not found that way, or a subcommand. The run's record goes there only when the normal
    path's cache is there too."""
    paths: list[str] = []
    given, i = None, 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            paths += argv[i + 1 :]
            break
        if arg.startswith("--cache-dir="):
            given = arg.partition("=")[2]
        elif arg in VALUE_OPTIONS:
            if arg == "--cache-dir" and i + 1 < len(argv):
                given = argv[i + 1]
            i += 2
            continue
        elif arg == "-" or not arg.startswith("-"):
            if i == 0 and arg in _SUBCOMMANDS:  # as the command line reads it
                return None
            paths.append(arg)
        i += 1
    if paths and paths[0] == "check":  # `jaxfix check PATH` is `jaxfix --check PATH`
        paths = paths[1:]
    paths = [os.path.abspath(p) for p in paths or ["."]]
    if given is not None:
        return os.path.abspath(given), paths
    start = paths[0]
    directory = start if os.path.isdir(start) else os.path.dirname(start)
    while True:
        if any(os.path.exists(os.path.join(directory, m)) for m in _MARKERS):
            return os.path.join(directory, _CACHE_DIR_NAME), paths
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _key(argv: list[str]) -> bytes:
    """What decides a run's output besides the files it looks at."""
    env = sorted((k, v) for k, v in os.environ.items() if k not in _ENV_NOT_IN_KEY)
    terminals = []
    for fd in (0, 1, 2):
        try:
            tty = os.isatty(fd)
            size = tuple(os.get_terminal_size(fd)) if tty else None
        except OSError:
            tty, size = False, None
        terminals.append((tty, size))
    cpus: int | None
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count()
    return repr(
        (
            argv,
            os.getcwd(),
            env,
            terminals,
            cpus,
            sys.executable,
            sys.version,
            sys.flags,
            sys.path,
            os.getuid() if hasattr(os, "getuid") else None,
        )
    ).encode("utf-8", "surrogateescape")


def _state(kind: bytes, path: bytes) -> bytes | None:
    """`path`'s state as a record holds it: size, mtime, ctime and inode, `-` when absent; None
    when it cannot be told (permission denied, ...)."""
    try:
        st = os.stat(path) if kind == b"s" else os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return b"-"
    except (OSError, ValueError):
        return None
    return b"%d,%d,%d,%d" % (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def replay(argv: list[str]) -> None:
    """Print the recorded output of the run `argv` and exit with its code when every input is as
    recorded; return otherwise (the normal path then runs)."""
    if (
        sys.stdout is None or sys.stderr is None
    ):  # a closed stream: the normal path says so
        return
    try:
        found = _recorded(argv)
    except Exception:  # noqa: BLE001 - any doubt: the normal path
        return
    except KeyboardInterrupt:  # as the normal path reports Ctrl-C (jaxfix/cli/main.py)
        sys.stderr.write(
            "jaxfix: interrupted by SIGINT; files not yet written are unchanged\n"
        )
        sys.exit(130)
    if found is None:
        return
    code, chunks = found
    streams = {b"1": sys.stdout, b"2": sys.stderr}
    for stream, data in chunks:
        out = streams[stream]
        out.flush()
        out.buffer.write(data)
        out.buffer.flush()
    sys.exit(code)


def _recorded(argv: list[str]) -> tuple[int, list[tuple[bytes, bytes]]] | None:
    found = _checked_cache_dir(argv)
    if found is None:
        return None
    directory, paths = found
    key = _key(argv)
    path = os.path.join(directory, _PREFIX + _hash(key)[:32])
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        parts = []
        while True:
            part = os.read(fd, 1 << 20)
            if not part:
                break
            parts.append(part)
            if sum(map(len, parts)) > _MAX_BYTES:
                return None
        data = b"".join(parts)
    finally:
        os.close(fd)
    if not data.startswith(_MAGIC):
        return None
    checksum, _, body = data[len(_MAGIC) :].partition(b"\n")
    if _hash(body).encode() != checksum:
        return None
    return _parse(body, key, {os.fsencode(p) for p in paths})


def _parse(
    body: bytes, key: bytes, required: set[bytes]
) -> tuple[int, list[tuple[bytes, bytes]]] | None:
    """The record `body` (key, exit code, inputs, output chunks), checked against now. The
    paths given (`required`) must be among its inputs: a record that leaves them out (a forged
    one that would name only what it can predict) is refused."""
    head, _, rest = body.partition(b"\n")
    key_length, code, inputs_length = (int(n) for n in head.split(b" "))
    if rest[:key_length] != _hash(key).encode():
        return None
    rest = rest[key_length:]
    inputs, rest = rest[:inputs_length], rest[inputs_length:]
    fields = inputs.split(b"\0")
    if len(fields) % 2 != 1 or fields[-1] != b"":
        return None
    stat_, lstat = os.stat, os.lstat
    missing = set(required)
    for i in range(0, len(fields) - 1, 2):
        recorded, path = fields[i], fields[i + 1]
        kind, state = recorded[:1], recorded[1:]
        if kind == b"s" and state != b"-":
            missing.discard(path)
        if state == b"-":
            try:
                (stat_ if kind == b"s" else lstat)(path)
            except (FileNotFoundError, NotADirectoryError):
                continue
            return None
        try:
            st = (stat_ if kind == b"s" else lstat)(path)
        except OSError:
            return None
        if (
            b"%d,%d,%d,%d" % (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            != state
        ):
            return None
    if missing:
        return None
    chunks = []
    while rest:
        head, _, rest = rest.partition(b"\n")
        stream, length = head.split(b" ")
        size = int(length)
        if stream not in (b"1", b"2") or len(rest) < size:
            return None
        chunks.append((stream, rest[:size]))
        rest = rest[size:]
    return code, chunks


# -- recording (the normal path) --------------------------------------------------------------


class _Tee:
    """A standard stream that also hands what is written to the recorder."""

    def __init__(self, stream: TextIO, name: bytes, recorder: _Recorder) -> None:
        self._stream, self._name, self._recorder = stream, name, recorder

    def write(self, text: str) -> int:
        written = self._stream.write(text)
        self._recorder.text(self._name, self._stream, text)
        return written

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    @property
    def buffer(self) -> _BufferTee:
        return _BufferTee(self._stream, self._name, self._recorder)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


class _BufferTee:
    def __init__(self, stream: TextIO, name: bytes, recorder: _Recorder) -> None:
        self._stream, self._name, self._recorder = stream, name, recorder

    def write(self, data: bytes) -> int:
        self._stream.flush()  # what was written as text comes first, as it was asked
        written = self._stream.buffer.write(data)
        self._recorder.output(self._name, bytes(data))
        return written

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream.buffer, name)


class _Recorder:
    def __init__(self, argv: list[str]) -> None:
        import pathlib
        import threading
        import time

        self.argv = argv
        self.started_ns = time.time_ns()
        self.pid = os.getpid()
        self.key = _key(argv)
        found = _checked_cache_dir(argv)
        self.directory: str | None = found[0] if found else None
        self.paths: list[str] = found[1] if found else []
        self.chunks: list[tuple[bytes, bytes]] = []
        self.spoiled = False
        self.seen: dict[tuple[bytes, bytes], bytes | None] = {}
        self.local = threading.local()
        self.active = True
        sys.addaudithook(self._audit)
        stat = pathlib.Path.stat
        recorder = self

        def watched_stat(
            path: pathlib.Path, *, follow_symlinks: bool = True
        ) -> os.stat_result:
            recorder.saw(b"s" if follow_symlinks else b"l", path)
            return stat(path, follow_symlinks=follow_symlinks)

        # every exists(), is_file(), is_dir() goes through it: the probes of a config or marker
        pathlib.Path.stat = watched_stat  # type: ignore[assignment]  # a stat, noted
        self._stat = stat
        sys.stdout = _Tee(sys.stdout, b"1", self)  # type: ignore[assignment,unused-ignore]  # a TextIO's
        sys.stderr = _Tee(sys.stderr, b"2", self)  # type: ignore[assignment,unused-ignore]  # a TextIO's

    def saw(self, kind: bytes, path: Any) -> None:
        """Note `path`'s state when the run first looks at it."""
        if (
            not self.active
            or os.getpid() != self.pid
            or getattr(self.local, "unnoted", False)
        ):
            return
        try:
            name = os.fsencode(os.path.abspath(os.fspath(path)))
        except (TypeError, ValueError):
            return
        if any(
            name == scratch or name.startswith(scratch + b"/") for scratch in _SCRATCH
        ):
            return
        if (kind, name) not in self.seen:
            self.seen[(kind, name)] = _state(kind, name)
            if name.endswith(b".pyc") and b"/__pycache__/" in name:  # and its source
                folder, _, file = name.rpartition(b"/__pycache__/")
                source = folder + b"/" + file.partition(b".")[0] + b".py"
                self.seen.setdefault((b"s", source), _state(b"s", source))

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int) or path is None:
                return
            if mode is None:
                if flags & (os.O_WRONLY | os.O_RDWR):
                    return
            elif any(c in mode for c in "wax+"):
                return
            self.saw(b"s", path)
        elif event in ("os.scandir", "os.listdir"):
            self.saw(b"s", args[0] if args[0] is not None else ".")

    def output(self, name: bytes, data: bytes) -> None:
        if self.active and not getattr(self.local, "off", False) and data:
            self.chunks.append((name, data))

    def text(self, name: bytes, stream: TextIO, text: str) -> None:
        try:
            data = text.encode(stream.encoding, stream.errors or "strict")
        except (AttributeError, LookupError, TypeError, UnicodeError):
            self.spoiled = True  # what reached the stream cannot be told: not replayed
            return
        self.output(name, data)

    def stop(self) -> None:
        import pathlib

        self.active = False
        pathlib.Path.stat = self._stat  # type: ignore[method-assign]  # as it was


def not_an_input(directory: str | os.PathLike[str]) -> None:
    """What the run reads under `directory` (its own scratch space, removed at its end, whose
    contents follow from the files it read: jaxfix/check/summaries.py) is not noted: a replay
    depends on those files, not on the scratch space."""
    _SCRATCH.append(os.fsencode(os.path.abspath(directory)))


def record(argv: list[str]) -> None:
    """Start recording this process's run of `argv` (the normal path, after `replay` returned)."""
    global _recorder
    if _recorder is None and _checked_cache_dir(argv) is not None:
        try:
            _recorder = _Recorder(argv)
        except Exception:  # noqa: BLE001 - recording only saves time later
            _recorder = None


class unrecorded:
    """What this thread writes inside is not part of the record (progress lines, which depend
    on how long the run took)."""

    def __enter__(self) -> None:
        if _recorder is not None:
            _recorder.local.off = True

    def __exit__(self, *exc: object) -> None:
        if _recorder is not None:
            _recorder.local.off = False


class unnoted:
    """What this thread looks at inside is not an input of the run: housekeeping whose outcome
    the output does not follow from (the temporary directory's leftovers of killed runs,
    jaxfix/ground/run_directories.py)."""

    def __enter__(self) -> None:
        if _recorder is not None:
            _recorder.local.unnoted = True

    def __exit__(self, *exc: object) -> None:
        if _recorder is not None:
            _recorder.local.unnoted = False


def spoil() -> None:
    """This run's output is not to be replayed (a progress bar drew on the terminal)."""
    if _recorder is not None:
        _recorder.spoiled = True


def finish(
    code: int,
    cache: Cache,
    paths: list[os.PathLike[str]],
    dependencies: list[tuple[os.PathLike[str], str | None, tuple[int, ...] | None]],
) -> None:
    """Write the record of this run, which exits with `code`, beside `cache`'s entries:
    its inputs are what it looked at, `paths` (the run's files) and the `dependencies` of its
    results (path, digest, signature). Best effort: nothing is written in any doubt."""
    recorder = _recorder
    if recorder is None or not recorder.active:
        return
    recorder.stop()
    if recorder.spoiled or recorder.directory != os.path.abspath(cache.directory):
        return
    try:
        cache.prepare_directory()
        _write(recorder, code, paths, dependencies)
    except Exception:  # noqa: BLE001, S110 - a record only saves time later
        pass


def _write(
    recorder: _Recorder,
    code: int,
    paths: list[os.PathLike[str]],
    dependencies: list[tuple[os.PathLike[str], str | None, tuple[int, ...] | None]],
) -> None:
    from pathlib import Path

    from jaxfix.write.safe_write import write_file

    if recorder.directory is None:
        return
    seen = dict(recorder.seen)
    for given in recorder.paths:
        seen.setdefault((b"s", os.fsencode(given)), None)
    for path in paths:
        seen.setdefault((b"s", os.fsencode(os.path.abspath(path))), None)
    for path, digest, signature in dependencies:
        if digest is None:
            return  # jaxfix could not vouch for what it read
        name = os.fsencode(os.path.abspath(path))
        now = _state(b"s", name)
        if now is None or (digest == "absent") != (now == b"-"):
            return
        if signature and now != b"%d,%d,%d,%d" % tuple(signature):
            return
        seen.setdefault((b"s", name), now)
    import jaxfix

    package = os.path.dirname(os.path.abspath(jaxfix.__file__))
    for folder, subfolders, files in os.walk(package):  # jaxfix's source: every rule's
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        for source in [
            folder,
            *(os.path.join(folder, f) for f in files if f.endswith(".py")),
        ]:
            seen.setdefault((b"s", os.fsencode(source)), None)
    cache = os.fsencode(recorder.directory) + b"/"
    limit = recorder.started_ns - SETTLED_NS
    inputs = []
    for (kind, name), then in sorted(seen.items()):
        if name.startswith((b"/proc/", b"/dev/", b"/sys/")) or name + b"/" == cache:
            # these change by themselves; the cache directory changes with every entry
            # written, while the entries this run read are inputs like any file (a forged one
            # could hide a diagnostic: a replay is made of the same entries)
            continue
        now = _state(kind, name)
        if now is None or (then is not None and then != now):
            return  # unreadable, or changed while the run looked
        if now != b"-":
            _size, mtime, ctime, _inode = now.split(b",")
            if max(int(mtime), int(ctime)) >= limit:
                return  # changed too recently: the same tick could hide another change
        inputs.append(kind + now + b"\0" + name + b"\0")
    merged: list[tuple[bytes, bytes]] = []
    chunks = recorder.chunks
    for name, data in chunks:
        if merged and merged[-1][0] == name:
            merged[-1] = (name, merged[-1][1] + data)
        else:
            merged.append((name, data))
    listed = b"".join(inputs)
    # The key's hash, never the key: it holds the environment (tokens, passwords), and the
    # cache directory may be kept, shared or uploaded as a CI cache is.
    key_hash = _hash(recorder.key).encode()
    body = b"%d %d %d\n" % (len(key_hash), code, len(listed))
    body += key_hash + listed
    body += b"".join(b"%s %d\n%s" % (name, len(data), data) for name, data in merged)
    data = _MAGIC + _hash(body).encode() + b"\n" + body
    if len(data) > _MAX_BYTES:
        return
    directory = Path(recorder.directory)
    write_file(directory / (_PREFIX + _hash(recorder.key)[:32]), data)
    records = sorted(directory.glob(_PREFIX + "*"), key=lambda p: p.stat().st_mtime_ns)
    for old in records[: max(0, len(records) - _MAX_RECORDS)]:
        old.unlink(missing_ok=True)
