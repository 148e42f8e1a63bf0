"""Worker processes that outlive the files that kill them, and never outlive jaxfix.

Each worker holds one task at a time, so when a worker dies (a segfault or abort in LibCST's
native parser, the OOM killer, a memory cap) the parent knows exactly which task did it: that
task gets one error, a fresh worker takes the dead one's place, and every other task runs.
Workers ask the kernel to kill them when their parent dies (Linux PR_SET_PDEATHSIG), or
elsewhere watch the parent's pid from a thread. A worker whose own memory has grown past
`max_resident` when it hands in a result is stopped and a fresh one takes its place (where
the kernel says how much a process holds: Linux): what a worker keeps between tasks, and the
memory its allocator cannot give back, does not add up over a run.

Where workers are replaced (Linux, fork), they are forked by a fork server: a process forked
from this one when the first worker is, which forks every worker, so that a replacement starts
as small as the first workers did, not as large as this process has grown since (a run's parent
holds every file it read and every result; the JAX repository's cold run: ~66 MB when the first
workers start, ~110 MB later).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

Task = TypeVar("Task")
Result = TypeVar("Result")

_PR_SET_PDEATHSIG = 1
_WATCHDOG_SECONDS = 1.0
_EXIT_GRACE_SECONDS = 2.0


def _die_with_parent(parent_pid: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = (
            sys.platform.startswith("linux")
            and libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        )
    except (OSError, AttributeError):
        done = False
    if not done:

        def watch() -> None:
            while os.getppid() == parent_pid:
                time.sleep(_WATCHDOG_SECONDS)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(1)


def _worker_main(
    connection: Connection,
    work: Callable[[Task], Result],
    parent_pid: int,
    prepare: Callable[[], None] | None,
) -> None:
    _die_with_parent(parent_pid)
    # Ctrl-C reaches the whole process group: the parent decides, and stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if prepare is not None:
        try:
            prepare()
        except Exception:  # noqa: BLE001 - the work meets the same failure and reports it per task
            pass
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        connection.send(work(task))


def _describe(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if -exitcode == signal.SIGKILL else ""
        return f"killed by {name}{hint}"
    return f"exited with status {exitcode}"


class _Served:
    """A worker the fork server forked, as much of `multiprocessing.Process` as the pool uses:
    its pid, a sentinel that is ready once it has exited (a pidfd), its exit code (negative: the
    signal that killed it) once joined, and `kill`. The fork server, its parent, reaps it."""

    def __init__(self, server: _ForkServer, pid: int) -> None:
        self.server, self.pid = server, pid
        self.sentinel = os.pidfd_open(pid)
        self.exitcode: int | None = None

    def join(self, timeout: float | None = None) -> None:
        if self.exitcode is None and wait([self.sentinel], timeout):
            code = self.server.reap(self.pid)
            # the server gone (killed), it cannot say: as a worker killed with it
            self.exitcode = -signal.SIGKILL if code is None else code
            os.close(self.sentinel)
            _started.discard(self.pid)

    def kill(self) -> None:
        if self.exitcode is None:
            try:
                signal.pidfd_send_signal(self.sentinel, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def is_alive(self) -> bool:
        self.join(0)
        return self.exitcode is None


class _ForkServer:
    """A process forked from this one that forks workers on request, each running
    `_worker_main` on a connection this process made: forked early, it holds what this process
    held then, so each worker starts that small however much this process holds later. It
    dies with this process (and its workers with it), ignores Ctrl-C as workers do, and exits
    once this process closes its end."""

    def __init__(
        self, work: Callable[[Any], Any], prepare: Callable[[], None] | None
    ) -> None:
        parent_pid = os.getpid()
        ours, theirs = socket.socketpair()
        for stream in (
            sys.stdout,
            sys.stderr,
        ):  # nothing buffered here is written twice
            try:
                stream.flush()
            except (AttributeError, ValueError, OSError):
                pass
        pid = os.fork()
        if pid == 0:  # the server: never returns
            code = 1
            try:
                ours.close()
                _die_with_parent(parent_pid)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _give_back_freed_memory()  # its workers start without it
                _serve(theirs, work, prepare)
                code = 0
            finally:
                os._exit(code)
        theirs.close()
        self.pid, self.socket = pid, ours
        # what a worker it forks may share with it: this process's anonymous memory now
        self.inherited = _status_field("self", b"RssAnon:")

    def start(self) -> tuple[_Served, Connection]:
        """A fresh worker, and this process's end of its connection."""
        ours, theirs = multiprocessing.Pipe()
        try:
            socket.send_fds(self.socket, [b"f"], [theirs.fileno()])
            pid = _read_int(self.socket)
        finally:
            theirs.close()
        return _Served(self, pid), ours

    def reap(self, pid: int) -> int | None:
        """The exit code of a worker that has exited (None if the server cannot say)."""
        try:
            self.socket.sendall(b"w" + struct.pack("=q", pid))
            return _read_int(self.socket)
        except OSError:
            return None

    def close(self) -> None:
        self.socket.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _give_back_freed_memory() -> None:
    """Return the heap's free pages to the system (glibc's malloc_trim; elsewhere nothing):
    what building the word index freed (the files' bytes, their words' lists) stays
    resident otherwise, in this process and in every worker forked from it."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _read_int(connection: socket.socket) -> int:
    data = b""
    while len(data) < 8:
        chunk = connection.recv(8 - len(data))
        if not chunk:
            raise OSError("the fork server has exited")
        data += chunk
    return int(struct.unpack("=q", data)[0])


def _serve(
    control: socket.socket,
    work: Callable[[Any], Any],
    prepare: Callable[[], None] | None,
) -> None:
    """The fork server's loop: `f` with a connection's descriptor forks a worker on it and
    answers its pid; `w` with a pid waits for that worker and answers its exit code."""
    server_pid = os.getpid()
    while True:
        message, fds, _, _ = socket.recv_fds(control, 9, 1)
        if not message:
            return
        if message[:1] == b"f" and fds:
            pid = os.fork()
            if pid == 0:  # a worker: never returns
                code = 1
                try:
                    control.close()
                    _worker_main(Connection(fds[0]), work, server_pid, prepare)
                    code = 0
                finally:
                    os._exit(code)
            os.close(fds[0])
            control.sendall(struct.pack("=q", pid))
        elif message[:1] == b"w":
            if len(message) < 9:
                message += control.recv(9 - len(message))
            (pid,) = struct.unpack("=q", message[1:9])
            try:
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                code = 1
            control.sendall(struct.pack("=q", code))
        else:
            for fd in fds:
                os.close(fd)


def _can_serve() -> bool:
    """Whether workers can be forked by a fork server here: fork, pidfds (Linux 5.3)."""
    if not forks() or not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    return True


@dataclass
class _Worker(Generic[Task]):
    process: multiprocessing.process.BaseProcess | _Served
    connection: Connection
    task: Task | None = None
    # The anonymous memory it may share with its parent: the parent's when it was forked
    # (0 when spawned; None when the system does not say).
    inherited: int | None = 0


def _context() -> multiprocessing.context.BaseContext:
    """fork where there is one: workers start in milliseconds and inherit what the parent loaded."""
    return multiprocessing.get_context("fork" if forks() else "spawn")


def forks() -> bool:
    """Whether workers are forked, so that they inherit what the parent built before."""
    return "fork" in multiprocessing.get_all_start_methods()


def _status_field(pid: int | str, field: bytes) -> int | None:
    """A `kB` field of /proc/PID/status (`RssAnon:`) in bytes, None where there is none."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(field):
                    return 1024 * int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _all_resident(pid: int) -> int | None:
    """Everything the process `pid` has resident, in bytes, shared or not (/proc/PID/statm:
    read at no cost, unlike the private pages)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _resident(pid: int) -> int | None:
    """The memory the process `pid` holds alone, in bytes, where the system says (Linux): its
    private pages. What a forked worker still shares with its parent (a language server, a
    test process that has loaded JAX) is not counted; what it wrote or allocated is."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            return 1024 * sum(
                int(line.split()[1])
                for line in rollup
                if line.startswith((b"Private_Clean:", b"Private_Dirty:"))
            )
    except (OSError, ValueError, IndexError):
        pass
    return _all_resident(pid)  # before Linux 4.14: everything resident


class Workers(Generic[Task, Result]):
    """Up to `jobs` worker processes running `work`, started by `grow` before there are tasks
    for them (each runs `prepare` at once, e.g. importing libcst while the parent is still
    reading files) or by `run`. Use as a context manager: leaving it stops the workers, at
    once if by an exception (KeyboardInterrupt included)."""

    def __init__(
        self,
        work: Callable[[Task], Result],
        jobs: int,
        crashed: Callable[[Task, str], Result],
        prepare: Callable[[], None] | None = None,
        max_resident: int | None = None,
    ) -> None:
        self.work, self.jobs, self.crashed, self.prepare = work, jobs, crashed, prepare
        self.max_resident = max_resident  # bytes; None: a worker serves the whole run
        self.context = _context()
        self.workers: list[_Worker[Task]] = []
        # where workers are replaced, they are forked by a fork server (started with the first)
        self.serve = max_resident is not None and _can_serve()
        self.server: _ForkServer | None = None

    def grow(self, count: int) -> None:
        """Start workers until there are `count` (at most `jobs`)."""
        while len(self.workers) < min(count, self.jobs):
            self.workers.append(self._start())

    def _start(self) -> _Worker[Task]:
        if self.serve and self.server is None:
            self.server = _ForkServer(self.work, self.prepare)
        if self.server is not None:
            try:
                served, connection = self.server.start()
            except OSError:  # the server is gone: workers are forked from here again
                self.server.close()
                self.server, self.serve = None, False
            else:
                _started.add(served.pid)
                return _Worker(served, connection, inherited=self.server.inherited)
        parent_end, child_end = self.context.Pipe()
        process = self.context.Process(
            target=_worker_main,
            args=(child_end, self.work, os.getpid(), self.prepare),
            daemon=True,
        )
        inherited = (
            _status_field("self", b"RssAnon:")
            if self.max_resident is not None
            and self.context.get_start_method() == "fork"
            else 0
        )
        process.start()
        child_end.close()
        return _Worker(process, parent_end, inherited=inherited)

    def run(self, tasks: list[Task]) -> Iterator[Result]:
        """`work(task)` for every task, results as they finish. `work` must not raise (it returns
        its failures as results). A task whose worker dies gets `crashed(task, "killed by
        SIGSEGV")` instead, and a fresh worker takes the dead one's place."""
        waiting: deque[Task] = deque(tasks)
        workers = self.workers

        def hand_out(worker: _Worker[Task]) -> _Worker[Task]:
            """Give `worker` the next task; a worker found dead while idle is replaced, the task kept."""
            while waiting:
                task = waiting.popleft()
                try:
                    worker.connection.send(task)
                except OSError:
                    waiting.appendleft(task)
                    _reap(worker)
                    worker = self._start()
                    continue
                worker.task = task
                break
            return worker

        self.grow(len(tasks))
        workers[:] = [hand_out(worker) for worker in workers]
        while any(w.task is not None for w in workers):
            busy = [w for w in workers if w.task is not None]
            ready = set(
                wait([w.connection for w in busy] + [w.process.sentinel for w in busy])
            )
            for index, worker in enumerate(workers):
                if worker.task is None or not ready & {
                    worker.connection,
                    worker.process.sentinel,
                }:
                    continue
                task, worker.task = worker.task, None
                try:
                    result = worker.connection.recv()
                except (EOFError, OSError):
                    _reap(worker)
                    result = self.crashed(task, _describe(worker.process.exitcode))
                    worker = workers[index] = self._start()
                else:
                    if waiting and self._grown(worker):
                        _stop(worker, gently=True)
                        worker = workers[index] = self._start()
                workers[index] = hand_out(worker)
                yield result

    def _grown(self, worker: _Worker[Task]) -> bool:
        """Whether `worker`, idle now, holds more memory than a worker may keep. Its private
        pages (`_resident`) cost the system a walk of its whole memory to count (several ms
        for a few hundred MB, once per file): they are counted only when two cheap bounds
        leave the answer open, all it has resident (at least its private pages) and its
        anonymous memory less what it may share with its parent (at most them)."""
        pid = worker.process.pid
        if self.max_resident is None or pid is None:
            return False
        everything = _all_resident(pid)
        if everything is not None and everything <= self.max_resident:
            return False
        anonymous = _status_field(pid, b"RssAnon:")
        if (
            anonymous is not None
            and worker.inherited is not None
            and anonymous - worker.inherited > self.max_resident
        ):
            return True
        resident = _resident(pid)
        return resident is not None and resident > self.max_resident

    def __enter__(self) -> Workers[Task, Result]:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        for worker in self.workers:
            _stop(worker, gently=kind is None)
        self.workers.clear()
        if self.server is not None:
            self.server.close()
            self.server = None


# The pids of the workers fork servers started in this process (see `running`).
_started: set[int] = set()


def running() -> list[int]:
    """The pids of this process's workers still running, forked here or by a fork server."""
    for pid in list(_started):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                alive = stat.read().rpartition(") ")[2][:1] not in ("Z", "X", "")
        except OSError:
            alive = False
        if not alive:
            _started.discard(pid)
    return sorted(
        {p.pid for p in multiprocessing.active_children() if p.pid is not None}
        | _started
    )


def _reap(worker: _Worker) -> None:
    worker.connection.close()
    worker.process.join(_EXIT_GRACE_SECONDS)
    if worker.process.exitcode is None:
        worker.process.kill()
        worker.process.join()


def _stop(worker: _Worker, *, gently: bool) -> None:
    if gently:
        try:
            worker.connection.send(None)
        except OSError:
            pass
        worker.process.join(_EXIT_GRACE_SECONDS)
    if worker.process.exitcode is None:
        worker.process.kill()
        worker.process.join()
    worker.connection.close()
