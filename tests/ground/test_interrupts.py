"""The interrupt guards shared by the writes, repair, migrate and the fleet."""

from __future__ import annotations

import ast
import os
import signal
import threading

import pytest

from helpers import run_engine
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.ground import interrupts
from jaxfix.ground.interrupts import (
    Interrupted,
    hold_interrupts,
    interrupt,
    signals_handled,
    signals_held,
)
from toy_rules import Crashing


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


class _InterruptedMidCleanup(Rule):
    """Ctrl-C arriving while a cleanup runs that then fails half-done: what LibCST's position
    recording does (its `finally` reads a position never computed, KeyError), or Python's
    wrapping of an exception raised in `__set_name__` (RuntimeError)."""

    __doc__ = Crashing.__doc__
    code = "JAX906"
    name = "interrupted-mid-cleanup"
    summary = "interrupt_here() is interrupted while a cleanup fails"
    fixes = {}
    tokens = ((b"interrupt_here",),)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "interrupt_here":
            computed: dict[str, int] = {}
            try:
                interrupt(signal.SIGINT, None)
            finally:
                computed["end"] += 1  # KeyError: takes the interrupt's place


def test_an_interrupt_replaced_by_a_cleanups_error_still_stops_the_run(monkeypatch):
    monkeypatch.setitem(RULES, _InterruptedMidCleanup.code, _InterruptedMidCleanup)
    monkeypatch.setattr(interrupts, "_received", [])
    with pytest.raises(Interrupted) as stopped:
        run_engine("interrupt_here()\n", ["--select", "JAX906"])
    assert stopped.value.code == 130


def test_a_rules_own_error_is_still_that_files_one_line_without_an_interrupt(
    monkeypatch,
):
    monkeypatch.setitem(RULES, _InterruptedMidCleanup.code, _InterruptedMidCleanup)
    monkeypatch.setitem(RULES, Crashing.code, Crashing)
    monkeypatch.setattr(interrupts, "_received", [])
    result = run_engine("crash_here()\n", ["--select", "JAX904"])
    assert result.error is not None and "the test rule crashed" in result.error
