"""What the server asks its analysis process, and what comes back: plain picklable values."""

from __future__ import annotations

from dataclasses import dataclass

from jaxfix.ground.diagnostics import FileResult
from jaxfix.sources.source import Source


@dataclass(frozen=True)
class Document:
    """One document as the editor holds it, as the Source the engine checks
    (jaxfix/sources/source.py): a file's text, or a notebook document built from its cells.
    `folder` is the workspace folder it is in (the project root when no config names one),
    None outside every folder."""

    source: Source
    folder: str | None

    @property
    def path(self) -> str:
        return str(self.source.path)


@dataclass(frozen=True)
class Check:
    """Diagnostics as the CLI finds them (config, target version, cache)."""

    document: Document


@dataclass(frozen=True)
class FixOne:
    """The source with the fix of one diagnostic applied (the rule's reports touching `lines`,
    1-based lines of the source's original, as its `original_lines` gives them), re-derived,
    never taken from the cache."""

    document: Document
    code: str
    lines: tuple[int, int]
    unsafe: bool


@dataclass(frozen=True)
class FixAll:
    """The source with every safe fix applied (never unsafe ones, whatever the config says)."""

    document: Document


Job = Check | FixOne | FixAll


@dataclass(frozen=True)
class Answer:
    """A job's result; `failure` when the analysis itself broke (the result is then None)."""

    result: FileResult | None
    failure: str | None = None
    excluded: bool = False


@dataclass(frozen=True)
class Hello:
    """The worker's first message, once the engine is imported: each rule's `--explain` text."""

    explain: dict[str, str]
