"""Which lines of a pull request a review comment may be attached to: the new side's lines of
each file's patch, changed or shown as context (GitHub and GitLab refuse any other line)."""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def commentable_lines(patch: str) -> set[int]:
    """The new file's line numbers a unified diff's hunks show (added or context)."""
    lines: set[int] = set()
    number = None
    for text in patch.splitlines():
        hunk = _HUNK.match(text)
        if hunk:
            number = int(hunk[1])
            continue
        if number is None or text.startswith("\\"):
            continue
        if text.startswith("-"):
            continue
        lines.add(number)
        number += 1
    return lines
