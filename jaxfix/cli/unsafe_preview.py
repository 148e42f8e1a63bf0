"""`--dry-run` without `--unsafe-fixes` also shows what the unsafe fixes would change, marked
as not applied: every preview shows both kinds of fix (ruff shows unsafe fixes only with the
flag; here a reviewer sees the whole change before choosing to take it).

The file with every fix is derived where the file is checked (jaxfix/check/unsafe_preview.py);
the diff shown goes from the file as the safe fixes leave it to the file with every fix.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from jaxfix.cli.render import render_diff, shown_path
from jaxfix.ground.diagnostics import FileResult


def render_unsafe_preview(console: Console, result: FileResult) -> None:
    if result.unsafe_fixed is None:
        return
    console.print(
        Text(
            f"{shown_path(result.path)}: the unsafe fixes above are NOT applied without --unsafe-fixes; with it they would change:",
            style="bold yellow",
        ),
        soft_wrap=True,
    )
    base = result.fixed if result.fixed is not None else result.source
    render_diff(console, FileResult(result.path, base, result.unsafe_fixed))
