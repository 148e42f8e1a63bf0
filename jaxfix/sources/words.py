"""The words of a file as the engine's word index sees them (jaxfix/analysis/ast_engine/
project.py), shared with the cache (jaxfix/cache/store.py), which checks a cached answer's word
lookups against a changed file's words: both must read a file the same way.

A notebook's words are those of its code cells as one module (jaxfix/sources/notebook.py), not of its
JSON; a notebook that does not parse has none. Kept free of the engine and of libcst: a warm
run imports it.
"""

from __future__ import annotations

import re
from pathlib import Path

from jaxfix.sources.paths import is_notebook

_WORD = re.compile(rb"[A-Za-z0-9_\x80-\xff]+")
# The random tag of a notebook module's marker and placeholder comments (jaxfix/sources/notebook.py).
_TAG = re.compile(rb"# jaxfix-[0-9a-f]{16}: ")


# Every byte that is no part of a word (`_WORD`) as a space: `words_of` splits on them, the
# same words as `_WORD.findall` finds, in about half its time (the index reads every file).
_NOT_WORD_AS_SPACE = bytes(
    c if _WORD.fullmatch(bytes([c])) else 0x20 for c in range(256)
)


def words_of(source: bytes) -> set[bytes]:
    """The identifiers (and numbers) in `source`, a UTF-8 identifier kept whole."""
    return set(source.translate(_NOT_WORD_AS_SPACE).split())


def split_words(text: str) -> list[bytes]:
    return _WORD.findall(text.encode())


def code_of(path: Path, raw: bytes) -> bytes | None:
    """The Python code of the file at `path` holding `raw`: the bytes themselves, or a
    notebook's code cells as one module; None for a notebook jaxfix cannot read."""
    if not is_notebook(path):
        return raw
    from jaxfix.sources.notebook import NotebookError, parse, to_module

    try:
        return to_module(parse(raw)).code
    except (
        NotebookError,
        ValueError,
        TypeError,
        KeyError,
        AssertionError,
        RecursionError,
    ):
        return None  # malformed: hostile input is normal


def file_words(path: Path, raw: bytes) -> set[bytes]:
    code = code_of(path, raw)
    return set() if code is None else words_of(code)


def same_code(path: Path, given: bytes, raw: bytes) -> bool:
    """Whether `given` is the code of the file holding `raw`: the bytes themselves, or for a
    notebook its code cells as one module, whose comments' random tag may differ (comments:
    the engine's answers are the same)."""
    if not is_notebook(path):
        return given == raw
    code = code_of(path, raw)
    return code is not None and _TAG.sub(b"# : ", code) == _TAG.sub(b"# : ", given)
