"""Running a command jaxfix was given (`repair`'s command, `migrate --verify`): in a session of
its own, so a timeout or an interrupt ends its whole process group, with its output going to a
file of which only the tail is kept."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from jaxfix.ground.interrupts import signals_held

_TAIL_LINES = 20
_GRACE_SECONDS = 2.0  # between SIGTERM and SIGKILL to the command's process group
_VERIFY_TAIL_LINES = 40
_VERIFY_TAIL_BYTES = 64 * 1024


@dataclass(frozen=True)
class CommandRun:
    returncode: int | None  # None: it did not start (`problem` says why)
    seconds: float
    timed_out: bool = False
    output_tail: str = ""
    problem: str | None = None


def run_command(
    command: Sequence[str],
    env: Mapping[str, str],
    cwd: Path | None,
    timeout: float | None,
    output: Path,
    started: Callable[[], None] | None = None,
) -> CommandRun:
    """One run in a session of its own; its whole process group is ended when it exits, when it
    times out, and when jaxfix is interrupted (which is then raised on). `started` is called
    once the command runs: what jaxfix does then costs the run nothing on a free core."""
    start = time.monotonic()
    process: subprocess.Popen[bytes] | None = None
    timed_out = False
    with open(output, "wb") as out:
        try:
            with signals_held():  # Ctrl-C while Popen returns would lose the process
                process = subprocess.Popen(
                    list(command),
                    cwd=cwd,
                    env=dict(env),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            if started is not None:
                started()
            returncode = process.wait(timeout=timeout)
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
    return CommandRun(returncode, seconds, timed_out, _tail(output))


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


def _tail(output: Path) -> str:
    with open(output, "rb") as handle:
        handle.seek(max(0, os.fstat(handle.fileno()).st_size - 16 * 1024))
        lines = handle.read().decode("utf-8", "replace").splitlines()
    return "\n".join(lines[-_TAIL_LINES:])


def kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def tail_of(output: BinaryIO) -> str:
    size = output.seek(0, os.SEEK_END)
    output.seek(max(0, size - _VERIFY_TAIL_BYTES))
    lines = output.read().decode("utf-8", errors="replace").splitlines()
    return "\n".join(lines[-_VERIFY_TAIL_LINES:])
