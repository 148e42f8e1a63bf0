"""Hand repositories to an executor, record each outcome as it arrives, retry the lost once.

A repository whose worker died is retried once, alone (nothing else runs beside it, so a
second death is its own doing), then reported failed. At most `executor.slots()` repositories
run at a time, so after Ctrl-C none starts that had not: the running ones finish (or, in a
local pool, are put back by their worker) and are recorded.
"""

from __future__ import annotations

import signal
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from jaxfix.fleet.executors import Executor, Lost
from jaxfix.fleet.sources import RepoSource
from jaxfix.fleet.unit import Outcome, retried, with_note
from jaxfix.workflows.migrate import RepoReport, Status

POLL_SECONDS = 0.2
MAX_ATTEMPTS = 2


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE_SECONDS = 60.0  # after a stop, how long running repositories get to be put back


class StopRequest:
    """The handler of SIGINT, SIGTERM and SIGHUP while repositories run: put back what is
    running, start nothing new. SIGTERM and SIGHUP (CI cancellation, `timeout`, a closed
    terminal) reach only this process, so they are passed on as the Ctrl-C a terminal would
    have sent to every process: to the pool's workers (`forward`) and to the SIGINT handler
    of a repository running here."""

    def __init__(self, forward: Callable[[], None] = lambda: None) -> None:
        self.requested = False
        self.signum: int | None = None  # the first stop signal, for the exit code
        self.forward = forward

    def __call__(self, signum: int, frame: object) -> None:
        self.requested = True
        if self.signum is None:
            self.signum = signum
        if signum != signal.SIGINT:
            self.forward()
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler) and handler is not self:
                handler(signal.SIGINT, frame)


class Display(Protocol):
    def start(self) -> None: ...

    def running(self, names: list[str], stopping: bool) -> None: ...

    def stop(self) -> None: ...


def dispatch(
    sources: list[RepoSource],
    executor: Executor,
    record: Callable[[RepoSource, Outcome], None],
    stop: StopRequest,
    dry_run: bool,
    display: Display,
) -> None:
    """Run every source unless stopped; `record` gets each outcome, in the order they finish."""
    waiting = deque(sources)
    retries: deque[RepoSource] = deque()
    running: dict[Any, RepoSource] = {}
    alone: set[Any] = set()  # a retry runs with nothing beside it
    lost: dict[str, int] = {}  # runs lost to a dead worker, by source key

    def hand_out() -> None:
        while not stop.requested and not alone:
            if retries:
                if running:
                    return
                source = retries.popleft()
            elif waiting and len(running) < executor.slots():
                source = waiting.popleft()
            else:
                return
            handle = executor.submit(source)
            running[handle] = source
            if lost.get(source.key):
                alone.add(handle)

    hand_out()  # before the display starts its refresh thread: a local pool forks its workers here
    display.start()
    deadline: float | None = None
    try:
        while running:
            if stop.requested and deadline is None:
                deadline = time.monotonic() + GRACE_SECONDS
            if deadline is not None and time.monotonic() > deadline:
                executor.abandon()  # the next run puts them back from their journals
                for source in running.values():
                    record(source, _interrupted(source, dry_run, ABANDONED))
                running.clear()
                break
            display.running([s.name for s in running.values()], stop.requested)
            for handle in executor.finished(list(running), POLL_SECONDS):
                source = running.pop(handle)
                alone.discard(handle)
                try:
                    outcome = executor.outcome(handle)
                except KeyboardInterrupt:
                    stop.requested = True  # the worker put the repository back
                    record(source, _interrupted(source, dry_run, PUT_BACK))
                    continue
                except Lost as error:
                    lost[source.key] = lost.get(source.key, 0) + error.attempts
                    if lost[source.key] < MAX_ATTEMPTS:
                        if not stop.requested:
                            retries.append(source)
                        continue
                    outcome = _failed(
                        source,
                        dry_run,
                        f"worker lost {lost[source.key]} times while migrating it "
                        f"(killed, or out of memory: {error}); not retried again, check the repository",
                    )
                except Exception as error:  # noqa: BLE001 - one repository's failure must not stop the fleet
                    outcome = _failed(
                        source,
                        dry_run,
                        f"worker failed ({type(error).__name__}: {error}); check the repository",
                    )
                else:
                    if lost.get(source.key):
                        outcome = with_note(outcome, retried(lost[source.key]))
                record(source, outcome)
            hand_out()
        display.running([], stop.requested)
    finally:
        display.stop()


PUT_BACK = "interrupted while running: put back untouched; a re-run migrates it"
NOT_STARTED = "not started: the run was stopped first; a re-run migrates it"
ABANDONED = (
    f"still running {GRACE_SECONDS:.0f} s after the stop: its worker was ended; "
    "a re-run puts it back and migrates it"
)


def _interrupted(source: RepoSource, dry_run: bool, reason: str) -> Outcome:
    return Outcome(
        RepoReport(source.key, source.name, Status.INTERRUPTED, dry_run, reason=reason)
    )


def _failed(source: RepoSource, dry_run: bool, reason: str) -> Outcome:
    return Outcome(
        RepoReport(source.key, source.name, Status.FAILED, dry_run, reason=reason)
    )
