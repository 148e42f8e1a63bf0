"""Progress that measures the real work: the bytes of source still to parse.

Files settled by reading, the prefilter or the cache cost nothing, so they are not counted;
progress appears once the runner says which files it will parse (`on_plan`), and only when
that is enough work to wait for. On a terminal: a rich bar with bytes, files done / total, the
time left and the file(s) being parsed. Otherwise (CI logs, `2> log`): one line every
`INTERVAL` seconds, starting after the first interval, like pip or pytest -v.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.ground.diagnostics import FileResult
from jaxfix.ground.escaping import printable
from jaxfix.ground.interrupts import start_without_signals
from jaxfix.sources.paths import display_path

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

MIN_BYTES = (
    64 * 1024
)  # about two seconds of parsing: less is not worth a progress display
INTERVAL = 5.0  # seconds between progress lines when stderr is not a terminal


class ParseProgress:
    """`plan` and `done` are run_files' `on_plan` and `on_done`; use as a context manager."""

    def __init__(self, console: Console, *, workers: int) -> None:
        self.console = console
        self.workers = workers
        self.pending: dict[Path, int] = {}  # in the order the runner hands them out
        self.files = self.total = self.parsed = 0
        self._bar: Progress | None = None
        self._task = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._lock = threading.Lock()

    def plan(self, planned: list[tuple[Path, int]]) -> None:
        self.pending = dict(planned)
        self.files, self.total = len(planned), sum(size for _, size in planned)
        if self.total < MIN_BYTES:
            return
        if self.console.is_terminal:
            from rich.progress import (  # only for a bar (about 14 ms of imports)
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("parsing"),
                BarColumn(),
                DownloadColumn(),
                TextColumn("{task.fields[files]}"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[current]}", markup=False),
                console=self.console,
                transient=True,
            )
            from jaxfix.cache import warm_path

            warm_path.spoil()  # a bar drawn on the terminal: this output is not replayed
            self._task = self._bar.add_task(
                "parsing",
                total=self.total,
                files=self._files_text(),
                current=self._current(),
            )
            self._bar.start()
        else:
            self._ticker = threading.Thread(
                target=self._tick, name="jaxfix-progress", daemon=True
            )
            start_without_signals(self._ticker)  # Ctrl-C is the main thread's

    def done(self, result: FileResult) -> None:
        with self._lock:
            size = self.pending.pop(result.path, None)
            if size is None:
                return  # settled cheaply: not part of the work
            self.parsed += size
        if self._bar is not None:
            self._bar.update(
                self._task,
                completed=self.parsed,
                files=self._files_text(),
                current=self._current(),
            )

    def _files_text(self) -> str:
        return f"{self.files - len(self.pending)}/{self.files} files"

    def _current(self) -> str:
        """The files handed to the workers and not done yet (the runner hands them out in order)."""
        return ", ".join(
            printable(display_path(p)) for p in list(self.pending)[: self.workers]
        )

    def line(self) -> str:
        with self._lock:
            share = self.parsed / self.total if self.total else 1.0
            return (
                f"jaxfix: parsed {self._files_text()}, {self.parsed / 1e6:.1f} of {self.total / 1e6:.1f} MB "
                f"({share:.0%}); now: {self._current() or '-'}"
            )

    def _tick(self) -> None:
        from jaxfix.cache import warm_path

        while not self._stop.wait(INTERVAL):
            with warm_path.unrecorded():  # how long it took: not what a replay prints
                self.console.print(
                    self.line(), soft_wrap=True, highlight=False, markup=False
                )

    def __enter__(self) -> ParseProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self._bar is not None:
            self._bar.stop()
