"""Code written for a newer Python than the one running jaxfix: which Python it needs.

The new engine reads files with Python's own `ast`, which knows only the running Python's
grammar (3.11 for jaxfix's own environment): `class Tracer[T: Trace](...)` (PEP 695, Python 3.12)
is a SyntaxError there, yet it is not the user's error. Such a file gets one line saying which
Python it needs (`not_checked`), is otherwise left alone, and every answer that would read it
(an import of it, a caller in it) is Unknown. The version is named from the construct at the
place Python's parser stopped, when it is one of those below; otherwise "a newer Python".
"""

from __future__ import annotations

import ast
import bisect
import re
import sys
from dataclasses import dataclass

from jaxfix.ground.diagnostics import Location

RUNNING = sys.version_info[:2]

# (version, what it is, the line's text from its start): the first construct that matches names
# the version. Matched on the line where the parser stopped only.
_CONSTRUCTS: tuple[tuple[tuple[int, int], str, re.Pattern[str]], ...] = (
    (
        (3, 12),
        "a generic class or function, PEP 695",
        re.compile(r"\s*(?:async\s+def|def|class)\s+\w+\s*\["),
    ),
    (
        (3, 12),
        "a `type` statement, PEP 695",
        re.compile(r"\s*type\s+\w+\s*[\[=]"),
    ),
    (
        (3, 14),
        "a template string, PEP 750",
        re.compile(r".*(?<![\w'\"])(?:[tT][rR]?|[rR][tT])['\"]"),
    ),
    (
        (3, 14),
        "`except` naming several exceptions without parentheses, PEP 758",
        re.compile(r"\s*except\*?\s+[^\s(:][^:]*,"),
    ),
)
_F_STRING = (3, 12), "an f-string nesting quotes, backslashes or comments: PEP 701"


class NewerGrammar(Exception):
    """A file in a newer Python's grammar: its one line (`not_checked`), where."""

    def __init__(self, message: str, where: Location) -> None:
        super().__init__(message)
        self.where = where


def needed_python(
    error: SyntaxError, source: bytes
) -> tuple[tuple[int, int], str] | None:
    """The Python whose grammar the code at `error` needs, and what the construct is, when it
    is newer than the running Python's; None when it is no construct known here."""
    lines = source.splitlines()
    number = error.lineno or 0
    text = (
        lines[number - 1].decode("utf-8", "replace") if 0 < number <= len(lines) else ""
    )
    found: tuple[tuple[int, int], str] | None = None
    if (error.msg or "").startswith("f-string"):
        found = _F_STRING
    else:
        for version, what, pattern in _CONSTRUCTS:
            if pattern.match(text):
                found = version, what
                break
    if found is None or found[0] <= RUNNING:
        return None
    return found


def not_checked(error: SyntaxError, source: bytes) -> tuple[str, Location]:
    """The one line for a file Python's parser rejects but that is valid in a newer Python
    (the caller has confirmed that, with LibCST: jaxfix/sources/syntax.py)."""
    running = f"{RUNNING[0]}.{RUNNING[1]}"
    needed = needed_python(error, source)
    where = Location(error.lineno or 1, error.offset or 1)
    if needed is None:
        return (
            f"not checked: this file uses syntax newer than Python {running}'s, which "
            f"jaxfix runs on; run jaxfix with a newer Python to check it",
            where,
        )
    (major, minor), what = needed
    return (
        f"not checked: this file needs Python {major}.{minor} ({what}); jaxfix runs on "
        f"Python {running}, whose parser cannot read it: run jaxfix with Python "
        f"{major}.{minor} or newer to check it",
        where,
    )


@dataclass(frozen=True)
class Region:
    """Where code in a newer grammar was blanked for `ast`: lines from 1, columns in UTF-8
    bytes from 0 (as `ast` counts them), and what it is."""

    start: tuple[int, int]
    end: tuple[int, int]
    python: tuple[int, int]
    what: str


@dataclass(frozen=True)
class Blanked:
    """Code the running Python's `ast` reads once its newer constructs are blanked: the tree
    (every other node where it is in the file), the regions blanked and the text parsed."""

    tree: ast.Module
    regions: tuple[Region, ...]
    text: str


_NAME = rb"(?:\w|[\x80-\xff])+"
_GENERIC = re.compile(
    rb"[ \t\f]*(?:async[ \t]+def|def|class)[ \t]+" + _NAME + rb"[ \t]*(?=\[)"
)
_TYPE = re.compile(rb"[ \t\f]*(type[ \t]+)" + _NAME + rb"[ \t]*(?=[\[=])")
_F_STRING_START = re.compile(rb"(?<![\w'\"])(?:[rR]?[fF]|[fF][rR])['\"]")
_LINE_END = re.compile(rb"\r\n|\r|\n")
_MAX_CONSTRUCTS = 256
_PEP_695 = (3, 12), "a generic class or function, PEP 695"
_PEP_695_TYPE = (3, 12), "a `type` statement, PEP 695"


# The blanked text and regions of the last sources `readable` read (their bytes are the key):
# a module a run reaches again (let go between two modules' questions) is blanked once, not
# once per read (finding a PEP 701 f-string parses the file with LibCST: 0.6 s for one file).
_BLANKED: dict[bytes, tuple[str, tuple[Region, ...]]] = {}
_MAX_BLANKED = 32


def readable(source: bytes, error: SyntaxError) -> Blanked | SyntaxError:
    """`_readable`, its blanked text and regions remembered for the last `_MAX_BLANKED`
    sources: read again, a source is parsed from its blanked text (a new tree each time)."""
    known = _BLANKED.get(source)
    if known is not None:
        text, regions = known
        try:
            return Blanked(ast.parse(text), regions, text)
        except (
            RecursionError,
            MemoryError,
        ):  # read deeper in a question: as the first time
            pass
    found = _readable(source, error)
    if isinstance(found, Blanked):
        if len(_BLANKED) >= _MAX_BLANKED:
            del _BLANKED[next(iter(_BLANKED))]  # the oldest
        _BLANKED[source] = found.text, found.regions
    return found


def _readable(source: bytes, error: SyntaxError) -> Blanked | SyntaxError:
    """`source`, rejected by Python's parser with `error`, as `ast` reads it once the
    constructs of Python 3.12 none of the rules looks into are blanked; else the error that
    stops the parser then (a real syntax error, a construct not blanked here).

    Each construct keeps its bytes' places, so every other node stays where it is: a generic's
    type parameters become spaces (`def f[T](x: T)` reads as `def f   (x: T)`), a `type`
    statement an assignment (`type X = int` reads as `_   =X = int`), an f-string Python
    3.11 rejects (PEP 701) a parenthesised name (`(      _)`; its value is unknown). The text
    is the file's, decoded as its coding cookie says and encoded as UTF-8, in which `ast`
    counts columns."""
    from jaxfix.sources.text import source_text

    original = source_text(source).encode("utf-8", "surrogateescape")
    code = bytearray(original)
    starts = [0, *(m.end() for m in _LINE_END.finditer(code))]
    regions: list[Region] = []
    strings_done = False
    for _ in range(_MAX_CONSTRUCTS):
        line = error.lineno or 0
        if not 0 < line <= len(starts):
            return error
        at = starts[line - 1]
        found = _generic(code, at) or _type_statement(code, at)
        if found is not None:
            regions.append(_region(starts, *found))
        elif not strings_done and _F_STRING_START.search(
            code, at, _line_end(code, starts, line)
        ):
            strings_done = True
            blanked = _blank_f_strings(source, original, code, starts)
            if not blanked:
                return error
            regions.extend(blanked)
        else:
            return error
        text = code.decode("utf-8", "surrogateescape")
        try:
            tree = ast.parse(text)
        except SyntaxError as next_error:
            error = next_error
            continue
        except (ValueError, UnicodeError, RecursionError, MemoryError):
            return error
        return Blanked(tree, tuple(regions), text)
    return error


def touched(regions: tuple[Region, ...], node: ast.AST) -> Region | None:
    """The first blanked region `node` overlaps (a fix of it would rewrite code `ast` was
    not shown), or None."""
    start = node.lineno, node.col_offset  # type: ignore[attr-defined]
    end = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
    for region in regions:
        if region.start < end and start < region.end:
            return region
    return None


def not_fixed(region: Region, where: Location) -> str:
    """The one line for a fix that would rewrite code blanked for `ast` (`touched`)."""
    (major, minor), running = region.python, f"{RUNNING[0]}.{RUNNING[1]}"
    return (
        f"not fixed: the fix at line {where.line} would rewrite code in Python "
        f"{major}.{minor}'s grammar ({region.what}), which jaxfix, on Python {running}, "
        f"does not read; run jaxfix with Python {major}.{minor} or newer to fix it"
    )


def _generic(code: bytearray, at: int) -> tuple[int, int, tuple[int, int], str] | None:
    found = _GENERIC.match(code, at)
    if found is None:
        return None
    closing = _blank_parameters(code, found.end())
    return None if closing is None else (found.end(), closing, *_PEP_695)


def _type_statement(
    code: bytearray, at: int
) -> tuple[int, int, tuple[int, int], str] | None:
    found = _TYPE.match(code, at)
    if found is None:
        return None
    end = found.end()
    if code[end] == 0x5B:  # `[`: its type parameters
        closing = _blank_parameters(code, end)
        if closing is None:
            return None
        end = closing
    keyword, space = found.start(1), found.end(1)
    code[keyword:space] = b"_" + b" " * (space - keyword - 2) + b"="
    return keyword, end, *_PEP_695_TYPE


def _blank_parameters(code: bytearray, opening: int) -> int | None:
    """Blank the type parameter list whose `[` is at `opening` when it is valid as a
    function's parameters; the offset after its `]`, or None."""
    closing = _closing_bracket(code, opening)
    if closing is None:
        return None
    params = bytes(code[opening + 1 : closing])
    try:
        ast.parse(b"def _(" + _LINE_END.sub(b" ", params) + b"): pass")
    except (SyntaxError, ValueError):
        return None
    _blank(code, opening, closing + 1)
    return closing + 1


def _blank_f_strings(
    source: bytes, original: bytes, code: bytearray, starts: list[int]
) -> list[Region]:
    """Blank each outermost string Python's parser rejects (an f-string of PEP 701), found
    with LibCST (its columns are characters of the `original` text); no region when LibCST
    cannot parse the file either."""
    from jaxfix.sources.cst_source import for_libcst
    from jaxfix.sources.nesting import too_deep

    if too_deep(source) is not None:  # LibCST would crash on it
        return []
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    layout = for_libcst(source)
    try:
        module = cst.parse_module(layout.normal)
    except cst.ParserSyntaxError:
        return []
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    rejected: list[cst.CSTNode] = []

    class Strings(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if not isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
                return True
            try:
                ast.parse("(" + module.code_for_node(node) + ")", mode="eval")
            except SyntaxError:
                rejected.append(node)
            return False

    module.visit(Strings())
    regions = []
    for node in rejected:
        where = positions[node]
        begin = _offset(
            original,
            starts,
            where.start.line,
            layout.original_column(where.start.line, where.start.column),
        )
        end = _offset(
            original,
            starts,
            where.end.line,
            layout.original_column(where.end.line, where.end.column),
        )
        if end - 2 <= begin or code[end - 2] in b"\r\n":
            return []
        _blank(code, begin, end)
        code[begin] = 0x28  # `(`
        code[end - 2 : end] = b"_)"
        regions.append(
            _region(
                starts,
                begin,
                end,
                (3, 12),
                "an f-string nesting quotes, backslashes or comments, PEP 701",
            )
        )
    return regions


def _offset(code: bytes, starts: list[int], line: int, column: int) -> int:
    """The offset in `code` of a character column on a line."""
    at = starts[line - 1]
    text = bytes(code[at : _line_end(code, starts, line)]).decode(
        "utf-8", "surrogateescape"
    )
    return at + len(text[:column].encode("utf-8", "surrogateescape"))


def _line_end(code: bytes | bytearray, starts: list[int], line: int) -> int:
    return starts[line] if line < len(starts) else len(code)


def _region(
    starts: list[int], begin: int, end: int, python: tuple[int, int], what: str
) -> Region:
    def place(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1]

    return Region(place(begin), place(end), python, what)


def _blank(code: bytearray, begin: int, end: int) -> None:
    for i in range(begin, end):
        if code[i] not in b"\r\n":
            code[i] = 0x20


def _closing_bracket(code: bytearray, opening: int) -> int | None:
    """The `]` closing the `[` at `opening` (brackets and quoted strings nested in it)."""
    depth, i, quote = 0, opening, 0
    while i < len(code):
        byte = code[i]
        if quote:
            if byte == quote:
                quote = 0
            elif byte == 0x5C:  # a backslash escapes the next byte
                i += 1
        elif byte in b"\"'":
            quote = byte
        elif byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
            if depth == 0:
                return i if byte == 0x5D else None
        i += 1
    return None
