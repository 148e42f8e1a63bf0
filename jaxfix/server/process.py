"""The server's side of the analysis process: one job at a time, in order; a job can be
withdrawn while it waits, or stopped while it runs (past a short grace period the process is
killed and a fresh one started, which costs its import of libcst: about half a second).

A process that dies by itself (a crash in LibCST, the memory killer) fails the job it was
running with a message; the next job gets a new process.
"""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

import jaxfix
from jaxfix.server.jobs import Answer, Hello, Job
from jaxfix.server.wire import receive, send

# `python -m` puts its working directory first on sys.path: started in the user's workspace, a
# `typing.py` there would be imported, i.e. the user's code run. -P (3.11+) leaves it out; on
# 3.10 the directory jaxfix itself is imported from stands in for it.
_SAFE_PATH = ("-P",) if sys.version_info >= (3, 11) else ()
_HOME = str(Path(jaxfix.__file__).resolve().parent.parent)


# A stopped job that ends within this long after it started is let finish (its answer dropped):
# restarting the process costs more. One still running then is killed.
_GRACE_SECONDS = 0.5
_POLL_SECONDS = 0.1


class Stopped(Exception):
    """The job was withdrawn or stopped because a newer one made it useless."""


@dataclass
class _Pending:
    job: Job
    owner: (
        Hashable  # what the job is for (a document): `stop(owner)` withdraws its jobs
    )
    future: asyncio.Future[Answer]
    number: int = field(default_factory=itertools.count().__next__)
    sent: float = 0.0  # loop time the process was given it
    stopped: bool = False


class AnalysisProcess:
    """`run(job, owner)` answers jobs in the order they came; `stop(owner)` ends that owner's."""

    def __init__(self) -> None:
        self.on_hello: Callable[[Hello], None] = lambda hello: (
            None
        )  # told each new process's Hello
        self._waiting: deque[_Pending] = deque()
        self._running: _Pending | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._replies: asyncio.Queue[tuple[subprocess.Popen[bytes], object]] | None = (
            None
        )
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pump: asyncio.Task[None] | None = None
        self.start()

    def start(self) -> None:
        """Start the process now (before the event loop exists: its imports overlap the server's)."""
        if self._process is None:
            self._process = subprocess.Popen(
                [sys.executable, *_SAFE_PATH, "-m", "jaxfix.server.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=_HOME,
            )
            if self._loop is not None:
                self._listen(self._process)

    def _listen(self, process: subprocess.Popen[bytes]) -> None:
        loop = self._loop
        assert loop is not None and process.stdout is not None
        stream = process.stdout

        def read() -> None:
            while True:
                try:
                    message: object = receive(stream)
                except (EOFError, OSError, ValueError):
                    message = EOFError()
                except Exception as error:  # noqa: BLE001 - an unreadable reply is a dead process
                    message = EOFError(str(error))
                loop.call_soon_threadsafe(self._received, process, message)
                if isinstance(message, EOFError):
                    return

        threading.Thread(
            target=read, name="jaxfix-analysis-reader", daemon=True
        ).start()

    def _received(self, process: subprocess.Popen[bytes], message: object) -> None:
        if isinstance(message, Hello):
            self.on_hello(message)
        else:
            assert self._replies is not None
            self._replies.put_nowait((process, message))

    def attach(self) -> None:
        """Start serving on the running event loop (the server calls it on `initialize`)."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._replies, self._wake = asyncio.Queue(), asyncio.Event()
            if self._process is not None:
                self._listen(self._process)
            self._pump = self._loop.create_task(self._serve())

    async def run(self, job: Job, owner: Hashable) -> Answer:
        """The job's answer; raises Stopped if `stop(owner)` came first."""
        self.attach()
        assert self._loop is not None
        pending = _Pending(job, owner, self._loop.create_future())
        self._waiting.append(pending)
        assert self._wake is not None
        self._wake.set()
        return await pending.future

    def stop(self, owner: Hashable) -> None:
        """Withdraw the owner's waiting jobs; stop the one running, if it is the owner's (the
        process is killed unless the job ends within its grace period)."""
        for pending in [p for p in self._waiting if p.owner == owner]:
            self._waiting.remove(pending)
            pending.future.set_exception(Stopped())
        running = self._running
        if running is not None and running.owner == owner and not running.stopped:
            running.stopped = True
            if (
                not running.future.done()
            ):  # (its caller may have stopped waiting already)
                running.future.set_exception(Stopped())

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
        self.start()

    async def _serve(self) -> None:
        assert self._wake is not None and self._replies is not None
        while True:
            while not self._waiting:
                self._wake.clear()
                await self._wake.wait()
            pending = self._waiting.popleft()
            if pending.future.done():  # its caller stopped waiting
                continue
            self._running = pending
            self.start()
            process = self._process
            assert process is not None and process.stdin is not None
            try:
                send(process.stdin, (pending.number, pending.job))
            except OSError:  # it died since the last job: its EOF is on the queue
                pass
            pending.sent = asyncio.get_running_loop().time()
            await self._finish(pending)
            self._running = None

    async def _finish(self, pending: _Pending) -> None:
        """Until the process answers the job or dies; a stopped job's process is killed once the
        job outlives its grace period."""
        assert self._replies is not None
        loop = asyncio.get_running_loop()
        while True:
            try:
                source, message = await asyncio.wait_for(
                    self._replies.get(), _POLL_SECONDS
                )
            except asyncio.TimeoutError:
                if pending.stopped and loop.time() >= pending.sent + _GRACE_SECONDS:
                    self._kill()
                    return
                continue
            if source is not self._process:
                continue  # a killed process's last words
            if isinstance(message, EOFError):
                self._process = None
                code = source.wait()
                if not pending.future.done():
                    failure = f"the analysis process stopped (exit code {code}); it is started again"
                    pending.future.set_result(Answer(None, failure=failure))
                return
            if isinstance(message, tuple) and message[0] == pending.number:
                if not pending.future.done():
                    pending.future.set_result(message[1])
                return

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
