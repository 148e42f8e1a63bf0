"""Hand repositories to an executor, record each outcome as it arrives, retry the lost once.

A repository whose worker died is retried once, alone (nothing else runs beside it, so a
second death is its own doing), then reported failed. At most `executor.slots()` repositories
run at a time, so after Ctrl-C none starts that had not: the running ones finish (or, in a
local pool, are put back by their worker) and are recorded.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from jaxfix.fleet.executors import Executor, Lost
from jaxfix.fleet.sources import RepoSource
from jaxfix.fleet.unit import Outcome
from jaxfix.workflows.migrate import RepoReport, Status

POLL_SECONDS = 0.2
MAX_ATTEMPTS = 2


class StopRequest:
    """The SIGINT handler while repositories run: finish or put back what is running, start nothing new."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: object) -> None:
        self.requested = True


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
    try:
        while running:
            display.running([s.name for s in running.values()], stop.requested)
            for handle in executor.finished(list(running), POLL_SECONDS):
                source = running.pop(handle)
                alone.discard(handle)
                try:
                    outcome = executor.outcome(handle)
                except KeyboardInterrupt:
                    stop.requested = True  # the worker put the repository back
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
                record(source, outcome)
            hand_out()
        display.running([], stop.requested)
    finally:
        display.stop()


def _failed(source: RepoSource, dry_run: bool, reason: str) -> Outcome:
    return Outcome(
        RepoReport(source.key, source.name, Status.FAILED, dry_run, reason=reason)
    )
