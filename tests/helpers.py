"""Shared test helpers: run jaxfix's engine with options parsed exactly as the CLI parses them."""

from __future__ import annotations

from pathlib import Path

from jaxfix.cli.main import cli
from jaxfix.config import Config, build_options
from jaxfix.diagnostics import FileResult
from jaxfix.engine import process_source
from jaxfix.options import Options


def options_from_args(args: list[str]) -> Options:
    context = cli.make_context("jaxfix", [*args, "-"])
    return build_options(Config(None, {}), context.params)


def run_engine(
    source: bytes | str, args: list[str] = (), path: str = "example.py"
) -> FileResult:
    data = source.encode() if isinstance(source, str) else source
    return process_source(Path(path), data, options_from_args(list(args)))
