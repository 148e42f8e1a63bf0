"""The interrupt guards shared by the writes, repair, migrate and the fleet."""

from __future__ import annotations

import os
import signal
import threading

from jaxfix.ground.interrupts import hold_interrupts, signals_handled, signals_held


def test_signals_handled_sets_the_handler_for_the_block_and_puts_back_the_previous():
    received: list[int] = []
    before = signal.getsignal(signal.SIGINT)
    with signals_handled(lambda signum, _frame: received.append(signum), signal.SIGINT):
        os.kill(os.getpid(), signal.SIGINT)
    assert received == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is before


def test_every_guard_does_nothing_outside_the_main_thread():
    # signal.signal raises ValueError there: a guard must not break a worker thread.
    problems: list[BaseException] = []

    def guarded() -> None:
        try:
            with (
                signals_handled(signal.SIG_IGN, signal.SIGINT),
                signals_held(),
                hold_interrupts() as held,
            ):
                held.check()
        except BaseException as error:  # noqa: BLE001 - reported below
            problems.append(error)

    thread = threading.Thread(target=guarded)
    thread.start()
    thread.join()
    assert problems == []


def test_a_held_interrupt_reaches_the_previous_handler_after_the_block():
    received: list[int] = []
    with signals_handled(lambda signum, _frame: received.append(signum), signal.SIGINT):
        with hold_interrupts():
            os.kill(os.getpid(), signal.SIGINT)
            assert received == []
        assert received == [signal.SIGINT]
