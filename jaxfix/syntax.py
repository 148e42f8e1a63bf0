"""Syntax errors in files no rule parses (the prefilter settled them), found cheaply.

Python's own parser finds and places them best. It only knows the grammar of the Python that
runs jaxfix, so code it rejects is confirmed with LibCST's parser (which knows newer grammar)
before it is called an error: `type X = int` is not a syntax error under Python 3.11.
"""

from __future__ import annotations

import ast

from jaxfix.diagnostics import Location


def syntax_error(source: bytes) -> tuple[str, Location] | None:
    """The message and place of the first syntax error, or None."""
    try:
        ast.parse(source)
        return None
    except SyntaxError as error:
        found = (f"syntax error: {error.msg}", Location(error.lineno or 1, error.offset or 1))
    except ValueError as error:  # e.g. "source code string cannot contain null bytes"
        found = (f"syntax error: {error}", Location(1, 1))
    import libcst as cst  # only for the rare file Python rejects

    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return found
    return None
