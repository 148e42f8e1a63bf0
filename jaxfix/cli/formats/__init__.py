"""Machine-readable output formats: each registers itself by name and renders a whole run.

A format gets every FileResult of the run and returns the document printed on stdout (and
nothing else goes to stdout). `text` is the human renderer in cli/render.py, not listed here.
A format that annotates or patches files as they are stored registers with `stored=True`: its
results come placed in each file's own text (a notebook's JSON lines, each message starting
with its cell place), as the file's Source places them (jaxfix/sources/source.py). One that
shows no fixed code registers with `fixed_code=False`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import FileResult
from jaxfix.sources.kinds import as_stored


@dataclass(frozen=True)
class RunInfo:
    """What a format may need besides the results."""

    rules: tuple[type[Rule], ...]
    write: bool  # whether fixes were written (False for --check / --dry-run / --diff)


Formatter = Callable[[list[FileResult], RunInfo], str]
FORMATS: dict[str, Formatter] = {}
# The formats that show no fixed code (no diff, edit or suggestion): a `--check` run in one of
# them may take a file's pending fix from the cache as a summary (FileResult.fix_pending).
WITHOUT_FIXED_CODE: set[str] = set()


def register(
    name: str, *, stored: bool = False, fixed_code: bool = True
) -> Callable[[Formatter], Formatter]:
    """`fixed_code` False: the format reads no result's `fixed` (only `changes`)."""

    def decorate(formatter: Formatter) -> Formatter:
        if name in FORMATS:
            raise ImportError(f"output format {name!r} is registered twice")
        if not fixed_code:
            WITHOUT_FIXED_CODE.add(name)
        FORMATS[name] = (
            (lambda results, info: formatter(list(map(as_stored, results)), info))
            if stored
            else formatter
        )
        return formatter

    return decorate


def _load_formats() -> None:
    import importlib
    import pkgutil

    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        importlib.import_module(f"{__name__}.{info.name}")


_load_formats()
