"""Syntax errors in files no rule parses (the prefilter settled them), found cheaply.

Python's own parser finds and places them best. It only knows the grammar of the Python that
runs jaxfix, so code it rejects is confirmed with LibCST's parser (which knows newer grammar)
before it is called an error: `type X = int` is not a syntax error under Python 3.11.
"""

from __future__ import annotations

import ast

from jaxfix.ground.diagnostics import Location
from jaxfix.sources.nesting import too_deep


def syntax_error(source: bytes) -> tuple[str, Location] | None:
    """The message and place of the first syntax error, or None."""
    try:
        ast.parse(source)
        return None
    except SyntaxError as error:
        found = (
            f"syntax error: {error.msg}",
            Location(error.lineno or 1, error.offset or 1),
        )
    except ValueError as error:  # e.g. "source code string cannot contain null bytes"
        found = (f"syntax error: {error}", Location(1, 1))
    except (RecursionError, MemoryError):  # nested too deeply for Python's parser
        found = ("syntax error: too deeply nested for Python's parser", Location(1, 1))
    refusal = too_deep(source)  # LibCST would crash on it (a C stack overflow)
    if refusal is not None:
        message, line, column = refusal
        return message, Location(line, column)
    import libcst as cst  # only for the rare file Python rejects

    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return found
    return None


def newer_grammar(source: bytes) -> tuple[str, Location] | None:
    """For code Python's parser rejects but LibCST reads (valid in a newer Python's grammar,
    as above): the one line saying the file is not checked and which Python it needs. None
    for code Python reads, for code it reads once its newer constructs are blanked (the
    engine checks it: jaxfix/sources/grammar.py), and for a real syntax error."""
    try:
        ast.parse(source)
        return None
    except SyntaxError as error:
        rejected = error
    except (ValueError, RecursionError, MemoryError):
        return None
    from jaxfix.sources.grammar import Blanked, not_checked, readable

    found = readable(source, rejected)
    if isinstance(found, Blanked):
        return None
    rejected = found  # the construct the engine cannot read
    if too_deep(source) is not None:
        return None
    import libcst as cst

    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    return not_checked(rejected, source)
