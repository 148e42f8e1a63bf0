"""Shared test helpers: run jaxfix's engine with options parsed exactly as the CLI parses them."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.cli.main import cli
from jaxfix.codemods import RULES
from jaxfix.ground.diagnostics import FileResult
from jaxfix.settings.config import Config, build_options
from jaxfix.settings.options import Options

Value = TypeVar("Value")


def options_from_args(args: list[str]) -> Options:
    context = cli.make_context("jaxfix", [*args, "-"])
    return build_options(Config(None, {}), context.params)


def run_engine(
    source: bytes | str, args: list[str] = (), path: str = "example.py"
) -> FileResult:
    data = source.encode() if isinstance(source, str) else source
    return check_file(Run(options_from_args(list(args))), Path(path), data)


def once_per_session(function: Callable[..., Value]) -> Callable[..., Value]:
    """`function` computed once per session for each input (hashable arguments) and set of
    registered rules: for the tests that ask different questions of the same engine run (a
    fixture's output and its preview, a mutant's diagnostics and its fix under real JAX).
    The value must be immutable, and `function` depend on nothing else a test may patch; the
    arguments (positional only) are the key."""
    cached = functools.cache(lambda registry, *args: function(*args))

    @functools.wraps(function)
    def once(*args: object) -> Value:
        return cached(frozenset(RULES.items()), *args)

    return once


@once_per_session
def shared_engine_run(source: bytes, args: tuple[str, ...], path: str) -> FileResult:
    """`run_engine`'s result (a frozen FileResult), computed once per input for the session."""
    return run_engine(source, list(args), path)
