"""Holding Ctrl-C (and SIGTERM) back while a step must not be cut in half: a file swap, starting a
process that must not be left unowned, a repository that must be put back first.

Signals reach Python handlers in the main thread only; elsewhere both guards do nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []


class Interrupted(SystemExit):
    """Ctrl-C or SIGTERM: exit 128 + the signal number, as a shell reports a process it killed.

    A SystemExit, not KeyboardInterrupt, so that click does not turn it into "Aborted!" (exit 1);
    writes in progress finish first (jaxfix/write/safe_write.py), workers are stopped on the way out.
    """


def interrupt(signum: int, _frame: object) -> None:
    """The CLI's handler of SIGINT and SIGTERM: remembered, then raised as `Interrupted`."""
    _received.append(signum)
    raise Interrupted(128 + signum)


def raise_if_interrupted() -> None:
    """Raise the interrupt again where an ordinary exception took its place while it unwound: a
    cleanup that failed half-done (LibCST's position recording), Python wrapping it (an import's
    `__set_name__` raises RuntimeError). Call it before treating an exception as a rule's bug."""
    if _received:
        raise Interrupted(128 + _received[0])


def start_without_signals(thread: threading.Thread) -> None:
    """Start `thread` with SIGINT and SIGTERM blocked in it, so the kernel hands them to the main
    thread. A process-directed signal goes to any thread that does not block it; taken by another
    thread, it wakes nothing in the main thread, which may be blocked in a system call (waiting
    for the command `repair` runs) and never runs the handler. The mask is inherited at creation:
    blocked here around `start()`, unblocked after, where a signal that came meanwhile is raised."""
    if threading.current_thread() is not threading.main_thread():
        thread.start()
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextmanager
def signals_held() -> Iterator[None]:
    """Delay SIGINT/SIGTERM to the end of the block, so no temp file outlives an interrupt (and
    no process `repair` starts is left unowned).

    Signals reach Python handlers in the main thread only; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = {}
    for signum in _HELD_SIGNALS:
        handler = signal.getsignal(signum)
        if handler is None:  # set outside Python: could not be restored
            continue
        previous[signum] = handler
        signal.signal(signum, lambda received, _frame: pending.append(received))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    for signum in pending[:1]:
        handler = previous[signum]
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            signal.raise_signal(signum)


class HeldInterrupt:
    """A Ctrl-C waiting for `check()`, called only where the repository can still be put back."""

    def __init__(self) -> None:
        self.pending = False

    def check(self) -> None:
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


@contextmanager
def hold_interrupts() -> Iterator[HeldInterrupt]:
    """Hold SIGINT for the block; one arriving after the last check goes to the previous handler
    once the block is done. Only the main thread gets signals; elsewhere this does nothing."""
    held = HeldInterrupt()
    # getsignal() is None when the handler was not set from Python: it could not be restored.
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is None
    ):
        yield held
        return

    def hold(signum: int, frame: object) -> None:
        held.pending = True

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous)
    if held.pending:
        if callable(previous):
            previous(signal.SIGINT, None)
        elif previous == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)


@contextmanager
def signals_handled(
    handler: signal.Handlers | Callable[[int, Any], Any], *signums: int
) -> Iterator[None]:
    """`handler` for these signals during the block (SIG_IGN: a process started in here inherits
    them ignored), the previous handlers after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
