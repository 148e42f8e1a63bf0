"""Parse every file named in FILE_LIST (one path per line) with libcst.parse_module, in one
process: the cost jaxfix would pay without its prefilter and cache (no metadata, no rules).

Run on the files that pass jaxfix's prefilter, the parse alone is the floor of any
LibCST-based check of those files (jaxfix parses with LibCST only the files that get a fix). With --scope, also resolve LibCST's ScopeProvider (the
analysis a rule needs to tell which `lower` or `use_abstract_mesh` a name refers to) through a
stock MetadataWrapper: scope analysis as LibCST ships it, including two traversals of the
module that jaxfix's own wrapper skips.
"""

from __future__ import annotations

import sys

import libcst
from libcst.metadata import MetadataWrapper, ScopeProvider


def main() -> None:
    failed = 0
    with_scope = "--scope" in sys.argv[2:]
    with open(sys.argv[1], encoding="utf-8") as listing:
        paths = listing.read().splitlines()
    for path in paths:
        with open(path, "rb") as handle:
            source = handle.read()
        try:
            module = libcst.parse_module(source)
            if with_scope:
                MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
        except (
            libcst.ParserSyntaxError,
            UnicodeDecodeError,
            SyntaxError,
        ):  # odd files in real trees
            failed += 1
    print(f"parsed {len(paths) - failed} files, {failed} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
