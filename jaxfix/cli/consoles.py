"""Where human output goes, as ruff does it: what the user reads (diffs, diagnostics, rule docs)
on stdout, so `--dry-run > preview.txt` and `| less` work; what tells how the run went (the
summary, progress, warnings, per-file errors) on stderr.

Colour follows `--color`; under `auto`, rich decides per stream from whether it is a terminal
and from `FORCE_COLOR` (on). A non-empty `NO_COLOR` means no escape codes at all, as ruff does
it: rich's own reading of it drops colours only, keeping bold, dim and italic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich costs a tenth of a warm run: imported when a console is made
    from rich.console import Console


def make_console(color: str, *, stdout: bool) -> Console:
    """A console for `--color auto|always|never` on stdout or stderr."""
    import os

    from rich.console import Console

    plain = color == "never" or (
        color == "auto" and os.environ.get("NO_COLOR", "") != ""
    )
    return Console(
        stderr=not stdout,
        force_terminal=True if color == "always" else None,
        color_system=None if plain else "auto",  # None: no escape codes at all
        highlight=False,
    )
