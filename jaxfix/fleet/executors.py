"""Where the units run: in this process (`-j 1`), a local process pool (the default), a Dask cluster.

All three take `RepoSource`s, hand back `Future`-like handles, and turn a dead worker into
`Lost`; what to retry is decided once, by the dispatcher. Dask (`distributed`) is imported only
when `--scheduler` asks for it.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from typing import Any, Protocol

from jaxfix.check.runner import default_jobs
from jaxfix.fleet.sources import RepoSource
from jaxfix.fleet.unit import (
    Outcome,
    bound_network,
    migrate_source,
    retried,
    with_note,
)
from jaxfix.ground.interrupts import signals_handled
from jaxfix.workflows.migrate import MigrateOptions

DASK_EXTRA = "pip install 'jaxfix[dask]'"
_POLL_SECONDS = 0.1


class Lost(Exception):
    """The worker running a repository died (killed, out of memory); `attempts` runs were lost."""

    def __init__(self, attempts: int, detail: str) -> None:
        super().__init__(detail)
        self.attempts = attempts


class MissingExtra(Exception):
    pass


def require_dask() -> None:
    """One clear error, naming the extra, when `distributed` cannot be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError as error:
        raise MissingExtra(
            f"--scheduler needs Dask's 'distributed' package, not installed ({error}): {DASK_EXTRA}"
        ) from None


class Executor(Protocol):
    dashboard: str | None

    def slots(self) -> int:
        """How many repositories to keep running at once."""

    def submit(self, source: RepoSource) -> Any: ...

    def finished(self, handles: list[Any], timeout: float) -> list[Any]:
        """Those of `handles` that are done, waiting at most `timeout` for one."""

    def outcome(self, handle: Any) -> Outcome:
        """The unit's result; raises `Lost`, KeyboardInterrupt (the worker put the repository back) or its error."""

    def interrupt(self) -> None:
        """Pass a stop on to running repositories as the Ctrl-C a terminal would send them."""

    def abandon(self) -> None:
        """End the workers still running after the grace period, without waiting for them."""

    def close(self) -> None: ...


class InProcess:
    """`-j 1`: one repository after the other, here, when the dispatcher waits for it (so the
    display already names it); a Ctrl-C reaches `migrate_repo` directly."""

    dashboard: str | None = None

    def __init__(self, options: MigrateOptions, push: bool) -> None:
        self.options, self.push = options, push

    def slots(self) -> int:
        return 1

    def submit(self, source: RepoSource) -> RepoSource:
        return source

    def finished(self, handles: list[RepoSource], timeout: float) -> list[RepoSource]:
        return handles[:1]

    def outcome(self, handle: RepoSource) -> Outcome:
        return migrate_source(handle, self.options, self.push)

    def interrupt(self) -> None:
        pass  # the repository runs in this process: StopRequest passes the stop on itself

    def abandon(self) -> None:
        pass

    def close(self) -> None:
        pass


class LocalPool:
    """Processes on this machine. A worker that dies breaks the whole pool: every repository it
    was running is `Lost` once, and the next submit starts a fresh pool."""

    dashboard: str | None = None

    def __init__(
        self, jobs: int, options: MigrateOptions, push: bool, network: int | None = None
    ) -> None:
        self.jobs, self.options, self.push = jobs, options, push
        # Shared by every pool this run starts; a spawn context's semaphore is one a spawned
        # replacement pool can open too (a fork context's is unlinked at once).
        self.network = (
            multiprocessing.get_context("spawn").Semaphore(network)
            if network and network < jobs
            else None
        )
        self.pool: ProcessPoolExecutor | None = None
        self.owners: dict[Future[Outcome], ProcessPoolExecutor] = {}
        self.broken = False

    def slots(self) -> int:
        return self.jobs

    def submit(self, source: RepoSource) -> Future[Outcome]:
        if self.pool is not None:
            try:
                return self._submit(self.pool, source)
            except BrokenProcessPool:  # a worker died since the last outcome was read
                self._drop(self.pool)
        # The first pool forks before rich starts its refresh thread; a replacement spawns.
        context = multiprocessing.get_context("spawn") if self.broken else None
        self.pool = ProcessPoolExecutor(
            max_workers=self.jobs,
            mp_context=context,
            initializer=bound_network,  # idle workers also ignore Ctrl-C
            initargs=(self.network,),
        )
        return self._submit(self.pool, source)

    def _submit(self, pool: ProcessPoolExecutor, source: RepoSource) -> Future[Outcome]:
        future = pool.submit(migrate_source, source, self.options, self.push)
        self.owners[future] = pool
        return future

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        pool.shutdown(wait=False, cancel_futures=True)
        if pool is self.pool:
            self.pool, self.broken = None, True

    def finished(
        self, handles: list[Future[Outcome]], timeout: float
    ) -> list[Future[Outcome]]:
        done, _ = wait(handles, timeout=timeout, return_when=FIRST_COMPLETED)
        return list(done)

    def outcome(self, handle: Future[Outcome]) -> Outcome:
        pool = self.owners.pop(handle)
        try:
            return handle.result()
        except BrokenProcessPool as error:
            self._drop(pool)  # a replacement pool started meanwhile stays
            raise Lost(1, f"a worker process died ({error})") from None

    def _workers(self) -> list[int]:
        pools = {id(p): p for p in [self.pool, *self.owners.values()] if p is not None}
        # ProcessPoolExecutor has no public list of its processes.
        return [pid for p in pools.values() for pid in (p._processes or {})]

    def interrupt(self) -> None:
        for pid in self._workers():
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGINT)  # an idle worker ignores it

    def abandon(self) -> None:
        for pid in self._workers():
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pool in {id(p): p for p in self.owners.values()}.values():
            pool.shutdown(wait=False, cancel_futures=True)
        self.owners.clear()
        self.pool = None

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def _check_address(address: str) -> None:
    """ValueError at once for what is no scheduler address (`Client` would retry it for 30 s, then
    raise a traceback): an unknown scheme, or a host name with spaces."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(address)
    get_backend(scheme)
    if scheme in ("tcp", "tls"):
        host, _ = parse_host_port(location, default_port=8786)
        if not host or any(char.isspace() for char in host):
            raise ValueError("not a scheduler address (tcp://HOST:PORT, or 'local')")


class DaskCluster:
    """A Dask distributed cluster: `address` of a running scheduler, or "local" for a LocalCluster.

    The scheduler re-runs a task whose worker died; after its `allowed-failures` (set to 1 for
    the LocalCluster started here) the future raises KilledWorker, which becomes `Lost`.
    """

    def __init__(
        self,
        address: str,
        jobs: int | None,
        options: MigrateOptions,
        push: bool,
        network: int | None = None,
    ) -> None:
        require_dask()
        import dask
        import distributed

        self.distributed, self.options, self.push, self.jobs = (
            distributed,
            options,
            push,
            jobs,
        )
        self.cluster = None
        if address == "local":
            with (
                dask.config.set({"distributed.scheduler.allowed-failures": 1}),
                _interrupts_ignored(),
            ):
                self.cluster = distributed.LocalCluster(
                    n_workers=jobs or default_jobs(),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                )
            self.client = distributed.Client(self.cluster, set_as_default=False)
        else:
            _check_address(address)
            self.client = distributed.Client(
                address, set_as_default=False, timeout="30s"
            )
        # One semaphore on the scheduler bounds the clones and pushes of every worker.
        self.network = (
            distributed.Semaphore(
                max_leases=network,
                name=f"jaxfix-migrate-network-{uuid.uuid4().hex[:12]}",
                scheduler_rpc=self.client.scheduler,
                loop=self.client.loop,
            )
            if network
            else None
        )
        services = self.client.scheduler_info().get("services", {})
        self.dashboard: str | None = (
            self.client.dashboard_link if "dashboard" in services else None
        )

    def slots(self) -> int:
        if self.jobs:
            return self.jobs
        return max(
            1, sum(self.client.nthreads().values())
        )  # asked each time: workers come and go

    def submit(self, source: RepoSource) -> Any:
        key = f"jaxfix-migrate-{source.name}-{uuid.uuid4().hex[:12]}"
        return self.client.submit(
            migrate_source,
            source,
            self.options,
            self.push,
            self.network,
            key=key,
            pure=False,
        )

    def finished(self, handles: list[Any], timeout: float) -> list[Any]:
        deadline = time.monotonic() + timeout
        while True:
            done = [h for h in handles if h.done()]
            if done or time.monotonic() >= deadline:
                return done
            time.sleep(_POLL_SECONDS)

    def outcome(self, handle: Any) -> Outcome:
        """The scheduler re-runs a task whose worker died: how often is read from it (its
        task's `suspicious` count) and said in the report."""
        try:
            outcome: Outcome = handle.result()
            lost = self._lost(handle.key)
            return with_note(outcome, retried(lost)) if lost else outcome
        except self.distributed.KilledWorker as error:
            raise Lost(
                error.allowed_failures + 1,
                f"its worker died {error.allowed_failures + 1} times",
            ) from None
        finally:
            handle.release()

    def _lost(self, key: str) -> int:
        try:
            return int(self.client.run_on_scheduler(_suspicious, key))
        except Exception:  # noqa: BLE001 - a scheduler without jaxfix: nothing to say
            return 0

    def interrupt(self) -> None:
        pass  # running repositories finish on their workers and are recorded

    def abandon(self) -> None:
        pass  # closing the client leaves them to their workers

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _suspicious(key: str, dask_scheduler: Any = None) -> int:
    """Runs on the scheduler: how many workers died running the task `key`."""
    task = dask_scheduler.tasks.get(key) if dask_scheduler is not None else None
    return int(getattr(task, "suspicious", 0) or 0)


@contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """Worker processes started in here inherit SIGINT ignored: a terminal Ctrl-C is the client's to handle."""
    with signals_handled(signal.SIG_IGN, signal.SIGINT):
        yield
