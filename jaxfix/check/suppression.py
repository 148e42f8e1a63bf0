"""`# jaxfix: ignore`, `# jaxfix: ignore[JAX001]` and `# noqa: JAX001` comments."""

from __future__ import annotations

import re

_IGNORE = re.compile(r"#\s*jaxfix:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(
    r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)


def suppressed_codes(line: str) -> frozenset[str] | None:
    """Codes a physical line suppresses; an empty set means all; None means no suppression."""
    codes: set[str] = set()
    found = False
    for pattern in (_IGNORE, _NOQA):
        for match in pattern.finditer(line):
            found = True
            listed = match.group("codes")
            if not listed:
                return frozenset()
            codes.update(
                c.strip().upper() for c in re.split(r"[,\s]+", listed) if c.strip()
            )
    return frozenset(codes) if found else None


def is_suppressed(lines: list[str], code: str, line_numbers: tuple[int, ...]) -> bool:
    """True if any of the 1-based lines carries a comment suppressing `code`."""
    for number in line_numbers:
        if 1 <= number <= len(lines):
            codes = suppressed_codes(lines[number - 1])
            if codes is not None and (not codes or code in codes):
                return True
    return False
