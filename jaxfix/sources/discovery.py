"""Which files a run looks at: the paths given, minus excludes and what .gitignore ignores."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.sources.paths import DEFAULT_INCLUDE

if TYPE_CHECKING:  # pathspec is imported only once a .gitignore is found
    import pathspec

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "build",
    "dist",
    "__pycache__",
    "node_modules",
    "site-packages",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".jaxfix_cache",
)
# Like ruff's `include`: file names (or paths) a directory walk takes; config `include` replaces
# it, `extend-include` adds to it. Notebooks (`*.ipynb`) are on by default.


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)


@functools.cache
def _globs(patterns: tuple[str, ...]) -> Callable[[str], object] | None:
    """One compiled regular expression for `fnmatch` of any pattern, or of `*/pattern`."""
    if not patterns:
        return None
    globs = [os.path.normcase(p) for p in patterns]
    return re.compile(
        "|".join(fnmatch.translate(g) for g in (*globs, *(f"*/{g}" for g in globs)))
    ).match


def is_excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether a path's name, or its path (or a tail of it), matches one of the globs."""
    match = _globs(patterns)
    return match is not None and bool(
        match(os.path.normcase(path.name)) or match(os.path.normcase(path.as_posix()))
    )


def is_included(path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether a walk takes the file: its name or path matches an include glob (as excludes match)."""
    return is_excluded(path, patterns)


# The .gitignore files that apply inside a directory, outermost first: (their directory, absolute; the spec).
_Chain = tuple[tuple[str, "pathspec.GitIgnoreSpec"], ...]


def _enclosing_gitignores(root: Path) -> _Chain:
    """The .gitignore files above `root` that apply inside it: from the enclosing git work
    tree's root down to `root`'s parent (none outside a git work tree)."""
    root = root.absolute()
    top = next((d for d in (root, *root.parents) if (d / ".git").exists()), root)
    chain: _Chain = ()
    for directory in reversed(root.parents[: len(root.parents) - len(top.parents)]):
        chain = _with_gitignore(chain, str(directory))
    return chain


def _with_gitignore(chain: _Chain, directory: str) -> _Chain:
    """`chain` extended with `directory`'s own .gitignore, if it has a readable one; nearer files win."""
    from jaxfix.settings.options import DEFAULT_MAX_FILE_SIZE
    from jaxfix.sources.file_io import (  # here: jaxfix.sources.file_io imports this module's constants
        ReadError,
        read_regular,
    )

    try:  # a committed .gitignore may be a symlink to /dev/zero
        lines = (
            read_regular(os.path.join(directory, ".gitignore"), DEFAULT_MAX_FILE_SIZE)
            .decode("utf-8", "replace")
            .splitlines()
        )
    except ReadError:
        return chain
    return (*chain, (directory, _gitignore_spec(lines)))


def _ignored(chain: _Chain, path: str, *, is_dir: bool) -> bool:
    """Whether git ignores the absolute `path`, inside the directory `chain` belongs to."""
    decision = None
    for directory, spec in chain:
        relative = path[len(directory.rstrip(os.sep)) + 1 :].replace(os.sep, "/") + (
            "/" if is_dir else ""
        )
        include = spec.check_file(relative).include
        if include is not None:
            decision = include
    return bool(decision)


def _gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """Lines git accepts but pathspec cannot compile (`!`, a lone `\\`, `[z-a]`) match nothing in git too."""
    import pathspec

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # noqa: BLE001 - pathspec raises its own errors and re.error
        return pathspec.GitIgnoreSpec.from_lines(
            [line for line in lines if _compiles(line)]
        )


def _compiles(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except Exception:  # noqa: BLE001
        return False
    return True


def discover(
    paths: list[Path],
    exclude: tuple[str, ...] = (),
    include: tuple[str, ...] = DEFAULT_INCLUDE,
) -> Discovery:
    """Expand directories; a file named explicitly is always taken, whatever its name or excludes."""
    found = Discovery()
    seen: set[str] = set()
    for root in paths:
        if root.is_file() or (root.exists() and not root.is_dir()):
            real = os.path.realpath(root)
            if real not in seen:
                seen.add(real)
                found.files.append(root)
        elif not root.exists():
            found.errors.append((root, "no such file or directory"))
        else:
            _walk(root, exclude, include, found, seen)
    found.files.sort()
    return found


def _walk(
    root: Path,
    exclude: tuple[str, ...],
    include: tuple[str, ...],
    found: Discovery,
    seen: set[str],
) -> None:
    """Top-down like `os.walk` (a directory's files, then its subdirectories, sorted by name), on
    `os.scandir`'s entries: whether an entry is a directory or a symlink costs no system call."""
    real_root = os.path.realpath(root)
    # (the directory as given, as an absolute path, as a real path, the .gitignores that apply in it)
    stack = [(root, str(root.absolute()), real_root, _enclosing_gitignores(root))]
    while stack:
        base, absolute, real, chain = stack.pop()
        try:
            with os.scandir(base) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            found.errors.append(
                (Path(error.filename), f"cannot read directory: {error.strerror}")
            )
            continue
        if any(entry.name == ".gitignore" for entry in entries):
            chain = _with_gitignore(chain, absolute)
        subdirectories = []
        for entry in entries:
            name, path = entry.name, base / entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not (
                    name in DEFAULT_EXCLUDES
                    or is_excluded(path, exclude)
                    or entry.is_symlink()
                    or (
                        chain
                        and _ignored(chain, os.path.join(absolute, name), is_dir=True)
                    )
                ):
                    subdirectories.append(
                        (path, os.path.join(absolute, name), os.path.join(real, name))
                    )
                continue
            if not is_included(path, include) or is_excluded(path, exclude):
                continue
            if entry.is_symlink():
                target = os.path.realpath(path)
                if not _inside(target, real_root):
                    continue
            else:
                target = os.path.join(real, name)
            if chain and _ignored(chain, os.path.join(absolute, name), is_dir=False):
                continue
            if target not in seen:
                seen.add(target)
                found.files.append(path)
        for path, child_absolute, child_real in reversed(subdirectories):
            stack.append((path, child_absolute, child_real, chain))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def project_files(
    root: Path,
    given: list[Path],
    exclude: tuple[str, ...] = (),
    include: tuple[str, ...] = DEFAULT_INCLUDE,
) -> tuple[Path, ...]:
    """The files of the project at `root` (as `jaxfix root` finds them) and the `given` ones:
    where the engine looks for a function's callers and a name's uses, whatever paths a run
    is given (issue 40: `jaxfix pkg/a.py` answers as `jaxfix .` does; only the findings are
    the given files'). The run's word index reads them only when a search needs it."""
    found = discover([root], exclude, include).files if root.is_dir() else []
    return tuple(dict.fromkeys(Path(os.path.abspath(p)) for p in (*given, *found)))
