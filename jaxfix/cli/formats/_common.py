"""What several output formats share: which diagnostics to report, paths, rule text."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from jaxfix.cli.formats import RunInfo
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Diagnostic, FileResult
from jaxfix.sources.paths import display_path


def reported(result: FileResult, info: RunInfo) -> tuple[Diagnostic, ...]:
    """Once fixes are written only what remains is news; before that, everything found."""
    return result.remaining if info.write else result.diagnostics


@lru_cache(maxsize=None)
def _work_tree(directory: Path) -> Path | None:
    if (directory / ".git").exists():
        return directory
    return None if directory.parent == directory else _work_tree(directory.parent)


def source_root() -> Path:
    """The git work tree around the working directory, else the working directory."""
    here = Path.cwd().resolve()
    return _work_tree(here) or here


def repository_path(path: Path) -> str:
    """The path relative to the enclosing git work tree, as code hosts name files; outside a
    repository, the path as jaxfix prints it."""
    absolute = path.resolve()
    root = _work_tree(absolute.parent)
    return absolute.relative_to(root).as_posix() if root else display_path(path)


def doc_section(rule: type[Rule], title: str) -> str:
    """One `## title` section of a rule's ruff-style docs, without its heading."""
    match = re.search(
        rf"^## {re.escape(title)}$(.*?)(?=^## |\Z)",
        rule.doc(),
        re.MULTILINE | re.DOTALL,
    )
    return match[1].strip() if match else ""
