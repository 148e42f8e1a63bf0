"""Running a command jaxfix was given (`repair`'s command, `migrate --verify`): in a session of
its own, so a timeout or an interrupt ends its whole process group, with its output going to a
file of which only the tail is kept. A watchdog ends that group too if jaxfix itself is killed,
so no command outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from jaxfix.ground.interrupts import signals_held

_TAIL_LINES = 20
_TAIL_BYTES = 16 * 1024
_GRACE_SECONDS = 2.0  # between SIGTERM and SIGKILL to the command's process group
_POLL_SECONDS = 0.1  # how often `poll` is called while the command runs


@dataclass(frozen=True)
class CommandRun:
    returncode: int | None  # None: it did not start (`problem` says why)
    seconds: float
    timed_out: bool = False
    output_tail: str = ""
    problem: str | None = None


def run_command(
    command: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: Path | None,
    timeout: float | None,
    output: Path | BinaryIO,
    started: Callable[[], None] | None = None,
    poll: Callable[[], None] | None = None,
    tail_lines: int = _TAIL_LINES,
    tail_bytes: int = _TAIL_BYTES,
) -> CommandRun:
    """One run in a session of its own; its whole process group is ended when it exits, when it
    times out, and when jaxfix is interrupted (which is then raised on): SIGTERM, then SIGKILL
    after a bounded grace. `started` is called once the command runs: what jaxfix does then
    costs the run nothing on a free core. `output` is a path, or a file open for reading
    and writing (a `tempfile.TemporaryFile` leaves nothing behind if jaxfix is killed). `poll`
    is called every tenth of a second while it runs; what it raises ends the run as an
    interrupt does. `env=None` passes jaxfix's own environment."""
    start = time.monotonic()
    process: subprocess.Popen[bytes] | None = None
    timed_out = False
    with ExitStack() as stack:
        out = (
            stack.enter_context(open(output, "w+b"))
            if isinstance(output, Path)
            else output
        )
        try:
            with signals_held():  # Ctrl-C while Popen returns would lose the process
                process = subprocess.Popen(
                    list(command),
                    cwd=cwd,
                    env=None if env is None else dict(env),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                stack.callback(_watchdog(process.pid))
            if started is not None:
                with signals_held():  # it starts a thread and imports: not cut in half
                    started()
            returncode = _wait(process, timeout, poll)
        except OSError as error:
            if process is not None:
                _end_group(process, kill_after=_GRACE_SECONDS)
                raise
            why = (
                "command not found"
                if isinstance(error, FileNotFoundError)
                else (error.strerror or str(error))
            )
            return CommandRun(
                None, time.monotonic() - start, problem=f"{command[0]}: {why}"
            )
        except subprocess.TimeoutExpired:
            assert process is not None
            timed_out = True
            _end_group(process, kill_after=_GRACE_SECONDS)
            returncode = process.wait()
        except BaseException:
            if process is not None:
                _end_group(process, kill_after=_GRACE_SECONDS)
                process.wait()
            raise
        seconds = time.monotonic() - start
        _end_group(process, kill_after=0.0)  # what it left running in the background
        tail = _tail(out, tail_lines, tail_bytes)
    return CommandRun(returncode, seconds, timed_out, tail)


# Waits on a pipe only jaxfix holds: `done` lets it go; end of file without it means jaxfix was
# killed (SIGKILL, out of memory), and it ends the command's whole group.
_WATCHDOG = 'read -r line; [ "$line" = done ] || kill -s KILL -- "-$1" 2>/dev/null'


def _watchdog(pgid: int) -> Callable[[], None]:
    """A process that ends the command's group if jaxfix dies before it does (the group is in
    a session of its own, so nothing else would); the callable releases it once the group is
    ended."""
    read, write = (
        os.pipe()
    )  # not inherited by the command: Python's pipes are O_CLOEXEC
    try:
        watcher = subprocess.Popen(
            ["/bin/sh", "-c", _WATCHDOG, "jaxfix-watchdog", str(pgid)],
            stdin=read,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to jaxfix's group is not its to act on
        )
    finally:
        os.close(read)

    def release() -> None:
        try:
            os.write(write, b"done\n")
        except OSError:
            pass
        os.close(write)
        watcher.wait()

    return release


def _wait(
    process: subprocess.Popen[bytes],
    timeout: float | None,
    poll: Callable[[], None] | None,
) -> int:
    """The exit status; TimeoutExpired after `timeout` seconds."""
    if poll is None:
        return process.wait(timeout=timeout)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            return process.wait(timeout=_POLL_SECONDS)
        except subprocess.TimeoutExpired:
            poll()
            if deadline is not None and time.monotonic() >= deadline:
                raise


def _end_group(process: subprocess.Popen[bytes], *, kill_after: float) -> None:
    """SIGTERM to the group, then SIGKILL to what is left after `kill_after` seconds."""
    try:
        os.killpg(process.pid, signal.SIGTERM if kill_after else signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + kill_after
    while time.monotonic() < deadline:
        if process.poll() is not None and not _group_alive(process.pid):
            return
        time.sleep(0.05)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _tail(output: BinaryIO, lines: int, size: int) -> str:
    """The last `lines` lines of the last `size` bytes: a bounded read of an unbounded output."""
    output.seek(max(0, os.fstat(output.fileno()).st_size - size))
    kept = output.read().decode("utf-8", "replace").splitlines()
    return "\n".join(kept[-lines:])
