"""Where human output goes, as ruff does it: what the user reads (diffs, diagnostics, rule docs)
on stdout, so `--dry-run > preview.txt` and `| less` work; what tells how the run went (the
summary, progress, warnings, per-file errors) on stderr.

Colour follows `--color`; under `auto`, rich decides per stream from whether it is a terminal
and from the environment (`NO_COLOR` turns colours off, `FORCE_COLOR` on), so neither is
overridden here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich costs a tenth of a warm run: imported when a console is made
    from rich.console import Console


def make_console(color: str, *, stdout: bool) -> Console:
    """A console for `--color auto|always|never` on stdout or stderr."""
    from rich.console import Console

    return Console(
        stderr=not stdout,
        force_terminal=True if color == "always" else None,
        color_system=None
        if color == "never"
        else "auto",  # never: no escape codes at all
        highlight=False,
    )
