"""Paths sent between a run and its workers as text, each made a `Path` once by the process
that receives it.

A worker's result names the run's files many times over (the files its answers read, the
files each search of the word index found: ~31,000 paths in the JAX repository's 429 results,
1,253 different ones), and unpickling a `Path` parses its parts again each time, a new object
each. Paths are immutable, so one object a text serves every result."""

from __future__ import annotations

import functools
from collections.abc import Callable
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

_PATH_TYPE = type(Path())
# The run's files, and the few other paths results name, with room to spare.
_MAX_KEPT = 1 << 16


@functools.lru_cache(maxsize=_MAX_KEPT)
def path_from_text(text: str) -> Path:
    """The one `Path` of `text` this process hands out."""
    return Path(text)


def _as_text(path: Path) -> tuple[Callable[[str], Path], tuple[str]]:
    return path_from_text, (str(path),)


def send_paths_as_text() -> None:
    """Pickle this process's paths for its workers' connections (and, in a forked worker,
    its results) as text."""
    ForkingPickler.register(_PATH_TYPE, _as_text)
