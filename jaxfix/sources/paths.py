"""How jaxfix names a file in its output, human or machine, tells a notebook by its name,
says what is at a path an import was looked for at, and keeps a config's writes in the project."""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISDIR, S_ISLNK, S_ISREG

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
    """Here, not in jaxfix/sources/notebook.py: asked of every file, which need not import that module."""
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


def symlink_on_the_way(target: Path, root: Path, *, include_target: bool) -> str | None:
    """Why writing at `target` could land outside the tree, or None: a part of the path from the
    top of the tree (the enclosing git work tree, else `root`) down to it (its parent directory,
    or `target` itself with `include_target`) that is a symbolic link or no directory. The tree
    may be a stranger's pull request; a committed symlink must not lead a write elsewhere."""
    top = next((d for d in (root, *root.parents) if (d / ".git").exists()), root)
    if not target.is_relative_to(top):
        return None
    parts = target.relative_to(top).parts
    for depth in range(1, len(parts) + (1 if include_target else 0)):
        part = top.joinpath(*parts[:depth])
        try:
            mode = os.lstat(part).st_mode
        except FileNotFoundError:
            return None  # created as a directory when first written
        except OSError as error:
            return f"{part}: {error.strerror}"
        if S_ISLNK(mode):
            return f"{part} is a symbolic link"
        if not S_ISDIR(mode):
            return f"{part} is not a directory"
    return None


def outside_the_project(value: str, target: Path, root: Path) -> bool:
    """A path a config file gives (`cache-dir`, `output-file`), resolved to `target`, that is
    absolute or climbs out of the project `root` with `..`."""
    return os.path.isabs(value) or not target.is_relative_to(root)
