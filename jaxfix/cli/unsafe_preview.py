"""`--dry-run` without `--unsafe-fixes` also shows what the unsafe fixes would change, marked
as not applied: every preview shows both kinds of fix (ruff shows unsafe fixes only with the
flag; here a reviewer sees the whole change before choosing to take it).

The file is checked once more with unsafe fixes on, in this process and only for files whose
findings have an unsafe fix left; the diff shown goes from the file as the safe fixes leave it
to the file with every fix.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from jaxfix.check.run import Run
from jaxfix.cli.render import render_diff, shown_path
from jaxfix.ground.diagnostics import FileResult, Safety


def unsafe_only(result: FileResult, run: Run) -> FileResult | None:
    """A result whose source is `result`'s safe fixed text and whose fixed text adds the unsafe
    fixes (None when there are none to show)."""
    if run.options.unsafe_fixes or result.error or result.source is None:
        return None
    if not any(d.fix_safety is Safety.UNSAFE for d in result.remaining):
        return None
    from jaxfix.check.engine import check_file

    every = check_file(run.with_options(unsafe_fixes=True), result.path, result.source)
    base = result.fixed if result.fixed is not None else result.source
    if every.error or every.fixed is None or every.fixed == base:
        return None
    return FileResult(result.path, base, every.fixed)


def render_unsafe_preview(console: Console, result: FileResult, run: Run) -> None:
    preview = unsafe_only(result, run)
    if preview is None:
        return
    console.print(
        Text(
            f"{shown_path(result.path)}: the unsafe fixes above are NOT applied without --unsafe-fixes; with it they would change:",
            style="bold yellow",
        ),
        soft_wrap=True,
    )
    render_diff(console, preview)
