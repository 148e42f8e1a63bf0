"""Text quoted in a message, cut to a length (code is put on one line first, by
jaxfix/analysis/syntax.py; a log's line already is one). No libcst here: `--from-log` and the
evidence reader quote lines too."""

from __future__ import annotations


def cut(text: str, limit: int = 60) -> str:
    """`text`, or its first `limit - 3` characters and '...'."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
