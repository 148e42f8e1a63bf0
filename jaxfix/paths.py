"""How jaxfix names a file in its output, human or machine, and tells a notebook by its name."""

from __future__ import annotations

from pathlib import Path

NOTEBOOK_SUFFIX = ".ipynb"


def display_path(path: Path) -> str:
    """Relative to the working directory when under it, else as given; POSIX separators."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def is_notebook(path: Path | str) -> bool:
    """Here, not in jaxfix/notebook.py: asked of every file, which need not import that module."""
    return str(path).endswith(NOTEBOOK_SUFFIX)
