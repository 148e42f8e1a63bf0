"""Which files a run looks at: the paths given, minus excludes and what .gitignore ignores."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "build", "dist", "__pycache__",
    "node_modules", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".jaxfix_cache",
)
# Like ruff's `include`: file names (or paths) a directory walk takes; config `include` replaces
# it, `extend-include` adds to it. Notebooks (`*.ipynb`) are on by default.
DEFAULT_INCLUDE = ("*.py", "*.pyi", "*.ipynb")


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)


def is_excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether a path's name, or its path (or a tail of it), matches one of the globs."""
    posix = path.as_posix()
    return any(
        fnmatch.fnmatch(path.name, p) or fnmatch.fnmatch(posix, p) or fnmatch.fnmatch(posix, f"*/{p}")
        for p in patterns
    )


def is_included(path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether a walk takes the file: its name or path matches an include glob (as excludes match)."""
    return is_excluded(path, patterns)


class _GitIgnores:
    """The .gitignore files that apply below a walk root: from the enclosing git work tree's
    root (or the walk root outside git) down to each directory; nearer files win."""

    def __init__(self, root: Path) -> None:
        root = root.absolute()
        self.top = next((d for d in (root, *root.parents) if (d / ".git").exists()), root)
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._specs:
            try:
                lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                self._specs[directory] = None
            else:
                self._specs[directory] = _gitignore_spec(lines)
        return self._specs[directory]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        path = path.absolute()
        decision = None
        for directory in reversed(path.parents):
            if directory != self.top and self.top not in directory.parents:
                continue
            spec = self._spec(directory)
            if spec is not None:
                relative = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
                include = spec.check_file(relative).include
                if include is not None:
                    decision = include
        return bool(decision)


def _gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """Lines git accepts but pathspec cannot compile (`!`, a lone `\\`, `[z-a]`) match nothing in git too."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # noqa: BLE001 - pathspec raises its own errors and re.error
        return pathspec.GitIgnoreSpec.from_lines([line for line in lines if _compiles(line)])


def _compiles(line: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except Exception:  # noqa: BLE001
        return False
    return True


def discover(paths: list[Path], exclude: tuple[str, ...] = (), include: tuple[str, ...] = DEFAULT_INCLUDE) -> Discovery:
    """Expand directories; a file named explicitly is always taken, whatever its name or excludes."""
    found = Discovery()
    seen: set[str] = set()

    def take(path: Path) -> None:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            found.files.append(path)

    for root in paths:
        if root.is_file() or (root.exists() and not root.is_dir()):
            take(root)
            continue
        if not root.exists():
            found.errors.append((root, "no such file or directory"))
            continue
        real_root = os.path.realpath(root)
        ignores = _GitIgnores(root)

        def on_error(error: OSError) -> None:
            found.errors.append((Path(error.filename), f"cannot read directory: {error.strerror}"))

        for directory, dirnames, filenames in os.walk(root, onerror=on_error):
            base = Path(directory)
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in DEFAULT_EXCLUDES
                and not is_excluded(base / d, exclude)
                and not (base / d).is_symlink()
                and not ignores.ignored(base / d, is_dir=True)
            )
            for name in sorted(filenames):
                path = base / name
                if not is_included(path, include) or is_excluded(path, exclude):
                    continue
                if path.is_symlink() and not _inside(os.path.realpath(path), real_root):
                    continue
                if ignores.ignored(path, is_dir=False):
                    continue
                take(path)
    found.files.sort()
    return found


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
