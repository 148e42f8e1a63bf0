"""How jaxfix names a file in its output, human or machine."""

from __future__ import annotations

from pathlib import Path


def display_path(path: Path) -> str:
    """Relative to the working directory when under it, else as given; POSIX separators."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()
