"""The modules a module's import statements may name, read from its code without parsing it.

A search for a function's callers reads only the modules that may import the function's module
(`Evaluator._may_import`); most modules holding the function's name and its module's name as
words import neither (123 of the 129 such modules a cold run on the JAX repository parsed in
one process). Telling so from the parsed module costs its parse; from the text, a scan. The scan finds every import
statement the parser would find, and more (the words `import x` in a comment or a string are
taken as one): a module it says imports nothing that reaches the function's module surely
imports nothing so; any other answer is the parsed module's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jaxfix.sources.text import source_text

_DOTTED = r"\w+(?:\s*\.\s*\w+)*"
# `from .x import y` (its module and dots), else `import a.b as c, d`: one pattern, so that the
# `import` of a from-import is never read as a plain import of the names after it
_IMPORT = re.compile(
    rf"\bfrom\b\s*(?P<dots>\.*)\s*(?P<module>{_DOTTED})?\s*\bimport\b"
    rf"|\bimport\s+(?P<names>{_DOTTED}(?:\s+as\s+\w+)?"
    rf"(?:\s*,\s*{_DOTTED}(?:\s+as\s+\w+)?)*)"
)
# where a statement `_IMPORT` reads may begin: searched by its letters, far faster than
# `_IMPORT`, which begins with `\b` and is tried at every position of the text
_STARTS = re.compile(r"from|import")
_ALIAS = re.compile(rf"({_DOTTED})(?:\s+as\s+\w+)?")
_CONTINUED = re.compile(r"\\\r?\n|\\\r")
# a dynamic import may import any module (what `_imports_module` takes as importing it)
_DYNAMIC = re.compile(r"\b(?:import_module|__import__)\b")


def spelled_imports(code: bytes) -> list[tuple[str, int]] | None:
    """Each module an import statement of `code` may name, as (dotted name, level): a
    from-import's module (`""` for `from . import x`), and for `import a.b.c` each of `a`,
    `a.b` and `a.b.c`; None where the code may import dynamically (`import_module`,
    `__import__`)."""
    text = _CONTINUED.sub(" ", source_text(code))
    if ("import_module" in text or "__import__" in text) and _DYNAMIC.search(text):
        return None
    found: list[tuple[str, int]] = []
    for match in _statements(text):
        names = match.group("names")
        if names is None:
            dots, module = match.group("dots"), match.group("module")
            if dots or module:  # `from import` is no statement
                found.append((_joined(module or ""), len(dots)))
            continue
        for alias in _ALIAS.finditer(names):
            parts = _joined(alias.group(1)).split(".")
            found.extend((".".join(parts[:n]), 0) for n in range(1, len(parts) + 1))
    return found


def _statements(text: str) -> Iterator[re.Match[str]]:
    """`_IMPORT.finditer(text)`, tried only where a match may begin: at a `from` or an
    `import` (every match begins with one), after the end of the match before."""
    end = 0
    for start in _STARTS.finditer(text):
        if start.start() < end:
            continue
        match = _IMPORT.match(text, start.start())
        if match is not None:
            yield match
            end = match.end()


def _joined(dotted: str) -> str:
    return "".join(dotted.split())
