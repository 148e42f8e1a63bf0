"""`--output-file FILE`: what would go to stdout goes to FILE, written once and atomically."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

# Code points HFS+ ignores in a name (git's own `.git` check drops them too).
_IGNORED = dict.fromkeys(
    map(
        ord,
        "\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f\ufeff",
    )
)
_SOURCE = (".py", ".pyi", ".pyw", ".ipynb")


def destination_problem(path: Path) -> str | None:
    """Why a report may not go to `path`, or None: a report is never written over Python
    source or a notebook (`--output-file a.py` would leave a.py holding the report, or empty
    after fixing it), nor into a `.git` directory (git runs what its config and hooks say),
    spelled in any case or with what a case-folding or Windows file system ignores."""
    names = [
        part.translate(_IGNORED).rstrip(". ").casefold()
        for part in Path(os.path.normpath(path)).parts
    ]
    if names and names[-1].endswith(_SOURCE):
        return "a report is not written over Python source or a notebook"
    if any(name in (".git", "git~1") for name in names):
        return "a report is not written into a .git directory"
    return None


class OutputFile:
    """`--output-file FILE`: stdout is gathered and written to FILE atomically when the run ends
    (not when it is interrupted: then FILE is left as it was)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self._saved: Any = None
        self._stream: io.TextIOWrapper | None = None

    def start(self, path: Path) -> None:
        self.path, self._saved = path, sys.stdout
        self._stream = io.TextIOWrapper(
            io.BytesIO(),
            encoding="utf-8",
            errors="backslashreplace",
            newline="",
            write_through=True,
        )
        sys.stdout = self._stream

    def finish(self, *, keep: bool) -> None:
        if self._stream is None or self.path is None:
            return
        from jaxfix.write.safe_write import write_file

        self._stream.flush()
        data = self._stream.buffer.getvalue()  # type: ignore[attr-defined]  # a BytesIO: see start
        sys.stdout, self._stream = self._saved, None
        if keep:
            try:
                write_file(self.path, data)
            except (
                OSError
            ) as error:  # one line and exit 2, as for any file jaxfix cannot write
                from jaxfix.ground.escaping import printable

                sys.stderr.write(
                    f"jaxfix: error: cannot write --output-file {printable(str(self.path))}: {error.strerror or error}\n"
                )
                raise SystemExit(2) from None
