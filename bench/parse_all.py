"""Parse every file named in FILE_LIST (one path per line) with libcst.parse_module, in one
process: the cost jaxfix would pay without its prefilter and cache (no metadata, no rules)."""

from __future__ import annotations

import sys

import libcst


def main() -> None:
    failed = 0
    with open(sys.argv[1], encoding="utf-8") as listing:
        paths = listing.read().splitlines()
    for path in paths:
        with open(path, "rb") as handle:
            source = handle.read()
        try:
            libcst.parse_module(source)
        except (libcst.ParserSyntaxError, UnicodeDecodeError, SyntaxError):  # odd files in real trees
            failed += 1
    print(f"parsed {len(paths) - failed} files, {failed} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
