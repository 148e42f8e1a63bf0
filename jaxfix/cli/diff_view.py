"""A diff for people: hunks with the changed words highlighted, and the findings each hunk fixes.

The hunks are the ones `jaxfix --diff` prints (difflib's grouped opcodes, 3 lines of context);
within a replaced block, difflib's SequenceMatcher over word tokens marks what changed, so a
one-keyword change in a long line stands out.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from itertools import groupby

from rich.text import Text

from jaxfix.ground.diagnostics import Diagnostic
from jaxfix.ground.escaping import printable
from jaxfix.sources.text import decode, split_lines

CONTEXT = 3
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
_STYLES = {
    "-": ("red", "bold white on red"),
    "+": ("green", "bold white on dark_green"),
    " ": ("", ""),
}


@dataclass(frozen=True)
class Hunk:
    old_start: int  # 1-based first line of the hunk in the old text
    old_end: int  # last line (inclusive)
    header: str  # "@@ -a,b +c,d @@"
    lines: tuple[Text, ...]

    def touches(self, first: int, last: int) -> bool:
        return first <= self.old_end and self.old_start <= last


def _range(start: int, stop: int) -> str:
    """difflib.unified_diff's numbering, so headers match `jaxfix --diff`."""
    length = stop - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def _marked(lines: list[str], spans: list[tuple[int, int]], prefix: str) -> list[Text]:
    """`lines` (one block) as Texts, the characters in `spans` (offsets in the joined block)
    highlighted; control characters in the code are shown escaped, not sent to the terminal."""
    base, strong = _STYLES[prefix]
    texts, offset = [], 0
    for line in lines:
        content = line.rstrip("\r\n")
        marked = [False] * len(content)
        for start, end in spans:
            start, end = max(start - offset, 0), min(end - offset, len(content))
            if start < end and content[start:end].strip():
                marked[start:end] = [True] * (end - start)
        text = Text(prefix, style=base)
        for strong_run, run in groupby(range(len(content)), key=marked.__getitem__):
            piece = "".join(content[i] for i in run)
            text.append(
                printable(piece, tabs=True), style=strong if strong_run else None
            )
        texts.append(text)
        offset += len(line)
    return texts


def _changed_spans(
    old: list[str], new: list[str]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans of the tokens that differ between two blocks of lines."""
    old_tokens, new_tokens = _TOKEN.findall("".join(old)), _TOKEN.findall("".join(new))
    old_at = [0]
    for token in old_tokens:
        old_at.append(old_at[-1] + len(token))
    new_at = [0]
    for token in new_tokens:
        new_at.append(new_at[-1] + len(token))
    old_spans, new_spans = [], []
    matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            old_spans.append((old_at[i1], old_at[i2]))
            new_spans.append((new_at[j1], new_at[j2]))
    return old_spans, new_spans


def hunks(old: bytes, new: bytes) -> list[Hunk]:
    a, b = split_lines(decode(old)), split_lines(decode(new))
    result = []
    for group in difflib.SequenceMatcher(
        None, a, b, autojunk=False
    ).get_grouped_opcodes(CONTEXT):
        lines: list[Text] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += _marked(a[i1:i2], [], " ")
                continue
            old_spans, new_spans = (
                _changed_spans(a[i1:i2], b[j1:j2]) if tag == "replace" else ([], [])
            )
            lines += _marked(a[i1:i2], old_spans, "-") + _marked(
                b[j1:j2], new_spans, "+"
            )
        first, last = group[0], group[-1]
        header = f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"
        result.append(
            Hunk(first[1] + 1, max(last[2], first[1] + 1), header, tuple(lines))
        )
    return result


def owner(hunks_: list[Hunk], diagnostic: Diagnostic) -> int | None:
    """The index of the hunk that holds `diagnostic`'s fix (its replaced lines), if any."""
    first, last = diagnostic.fix_lines or (diagnostic.start.line, diagnostic.end.line)
    return next((i for i, hunk in enumerate(hunks_) if hunk.touches(first, last)), None)
