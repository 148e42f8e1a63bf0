"""How jaxfix names a file in its output, human or machine, tells a notebook by its name, and
says what is at a path an import was looked for at."""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISDIR, S_ISREG

# The files a directory walk takes (the `include` setting's default).
DEFAULT_INCLUDE = ("*.py", "*.pyi", "*.ipynb")

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


PATH_STATES = ("file", "directory", "absent", "other")


def path_state(path: Path) -> str:
    """What is at `path` (symlinks followed): one of `PATH_STATES`."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "absent"
    except (OSError, ValueError):
        return "other"
    return "file" if S_ISREG(mode) else "directory" if S_ISDIR(mode) else "other"
