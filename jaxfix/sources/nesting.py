"""Refuse code nested deeper than LibCST survives, before LibCST sees it.

LibCST's tree walks recurse in Python, about three frames per level of the tree (`visit`,
`_visit_and_replace_children`, `visit_required`; two more through a sequence field such as a
call's arguments), and past Python's recursion limit (1000 frames) they fail; its native parser
overflows the C stack (the process dies) deeper still: 5,000 nested lambdas, 100,000 unary minus
signs or parentheses. So the screen estimates, from the tokens, how many frames a walk down to
each token takes, construct by construct (measured on LibCST 1.9: `tests/cli/test_hostile_input.py`
nests each construct until it fails), and refuses code whose estimate passes a budget that leaves
the rest of the limit to jaxfix's own frames and its caller's. Real code nests nowhere near it.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from dataclasses import dataclass, field

MAX_FRAMES = 800  # of Python's 1000: a walk's estimate may not pass this (a codec's table of 256 adjacent strings is 770)

# Frames a walk spends per level of each construct (LibCST's node and field per level).
_OPERATOR = 3  # an operator (below), `.`, a call or subscript of what it follows, a conditional's `if`, adjacent strings
_LAMBDA = 5  # a scope too: the scope analysis visits it apart, and looks a name up through every enclosing one
_CALL_ARGUMENTS = 5  # `f(...)`: the arguments (a sequence), an Arg (the call itself is a trailer: an operator)
_ELEMENTS = 8  # `[`, `(`, `{`: a display, comprehension, subscript or f-string field: node, sequence, element
_BLOCK = 8  # an indented block: the statement, its body (a sequence), the block
_ELIF = 3  # each `elif` is the `orelse` of the previous `if`

_OPENING, _CLOSING = "([{", ")]}"
_SEPARATORS = frozenset({",", ";", ":", "=", ":=", "->"})
# Python's precedence, loosest first: `a * b + c * d + e` nests as deep as its `+` chain plus one `*`,
# so an operator ends the chains of the operators that bind tighter than it.
_PRECEDENCE = {
    **dict.fromkeys(["if"], 0),
    "or": 1,
    "and": 2,
    "not": 3,
    **dict.fromkeys(["in", "is", "<", ">", "==", ">=", "<=", "!=", "<>"], 4),
    "|": 5,
    "^": 6,
    "&": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    **dict.fromkeys(["*", "/", "//", "%", "@"], 10),
    "~": 11,
    "**": 12,
    "await": 13,
    ".": 14,
}
_VALUES = frozenset({"None", "True", "False"})
_UNARY = 11  # `-x`, `+x`, `~x`
_TRAILER = 14  # `.`, and a call or subscript of what it follows
_CONCATENATION = 15  # adjacent strings
_PRECEDENCES = 16
_TRAILER_AFTER = frozenset({tokenize.NAME, tokenize.STRING, tokenize.NUMBER})
_FSTRING_START = getattr(
    tokenize, "FSTRING_START", None
)  # Python 3.12+ splits f-strings into tokens
_STRING_STARTS = frozenset({tokenize.STRING, _FSTRING_START} - {None})
_STRING_ENDS = frozenset(
    {tokenize.STRING, getattr(tokenize, "FSTRING_END", None)} - {None}
)
_FIELD_BRACE = re.compile(r"\{\{|\}\}|[{}]")
_FSTRING = re.compile(r"[A-Za-z]*[fF][A-Za-z]*['\"]")
_PYTHON_LIMITS = {
    "too many nested parentheses": "more than 200 brackets, Python's own limit",
    "too many nested f-strings": "f-strings nested deeper than Python's own limit",
}


@dataclass
class _Level:
    """An open bracket (or the statement itself): the walk's cost down to it, and since it."""

    frames: int
    levels: int
    chain: int = 0  # frames of the operators chained since the last separator
    chain_levels: int = 0
    chains: list[int] = field(
        default_factory=lambda: [0] * _PRECEDENCES
    )  # operators chained, by precedence
    lambdas: list[tuple[int, int, list[int]]] = field(
        default_factory=list
    )  # the chain at each `lambda` whose `:` is to come

    def deeper(self, frames: int, levels: int) -> _Level:
        return _Level(
            self.frames + self.chain + frames, self.levels + self.chain_levels + levels
        )

    def operator(self, precedence: int) -> None:
        ended = sum(self.chains[precedence + 1 :])
        self.chains[precedence + 1 :] = [0] * (_PRECEDENCES - precedence - 1)
        self.chains[precedence] += 1
        self.chain += _OPERATOR * (1 - ended)
        self.chain_levels += 1 - ended

    def separator(self) -> None:
        self.chain = self.chain_levels = 0
        self.chains = [0] * _PRECEDENCES

    def lambda_body(self) -> None:
        """At a lambda's `:`: the chain as it was at its `lambda`, one lambda deeper (its body
        is a new chain: nothing in it ends what was chained before)."""
        chain, levels, _ = self.lambdas.pop()
        self.chain, self.chain_levels, self.chains = (
            chain + _LAMBDA,
            levels + 1,
            [0] * _PRECEDENCES,
        )


def too_deep(source: bytes) -> tuple[str, int, int] | None:
    """Why `source` is refused and where (1-based line and column), or None.

    Code that does not tokenize is left to the parser to report.
    """
    blocks = [
        [0, 0, 0]
    ]  # per indentation level: frames, levels, frames of the `elif`s chained at it
    stack = [_Level(0, 0)]
    fields = 0  # f-string fields left open by a string token (Python < 3.12 reads `f"{f"{x}"}"` as pieces)
    line_start = True
    previous: tokenize.TokenInfo | None = None
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            kind, text = token.type, token.string
            top = stack[-1]
            if kind in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                if kind == tokenize.INDENT:
                    frames, levels, elifs = blocks[-1]
                    blocks.append(
                        [frames + elifs + _BLOCK, levels + elifs // _ELIF + 1, 0]
                    )
                elif kind == tokenize.DEDENT and len(blocks) > 1:
                    blocks.pop()
                line_start, fields, previous = True, 0, None
                continue
            if kind in (
                tokenize.NL,
                tokenize.COMMENT,
                tokenize.ENCODING,
                tokenize.ENDMARKER,
            ):
                continue
            if line_start:
                line_start = False
                block = blocks[-1]
                if text == "elif":
                    block[2] += _ELIF
                elif text != "else":
                    block[2] = 0
                stack = [_Level(block[0] + block[2], block[1] + block[2] // _ELIF)]
                top = stack[0]
            if kind == tokenize.OP and text in _OPENING:
                call = (
                    text != "{"
                    and previous is not None
                    and (previous.type in _TRAILER_AFTER or previous.string in _CLOSING)
                )
                if call:  # a call or subscript is a trailer of what it follows, like an operator: one level
                    top.operator(_TRAILER)
                stack.append(
                    top.deeper(
                        _CALL_ARGUMENTS if call and text == "(" else _ELEMENTS,
                        0 if call else 1,
                    )
                )
            elif kind == tokenize.OP and text in _CLOSING:
                if len(stack) > 1:
                    stack.pop()
            elif kind == tokenize.NAME and text == "lambda":
                top.lambdas.append((top.chain, top.chain_levels, top.chains))
            elif (
                kind == tokenize.OP and text == ":" and top.lambdas
            ):  # a lambda's body nests in it
                top.lambda_body()
            elif kind == tokenize.OP and text in _SEPARATORS:
                top.separator()
            elif kind in (tokenize.OP, tokenize.NAME) and text in _PRECEDENCE:
                unary = text in "+-" and (
                    previous is None or not _ends_operand(previous)
                )
                top.operator(_UNARY if unary else _PRECEDENCE[text])
            elif (
                kind in _STRING_STARTS
                and previous is not None
                and previous.type in _STRING_ENDS
            ):
                top.operator(_CONCATENATION)
            inside = fields
            if kind == tokenize.STRING and (fields or _FSTRING.match(text)):
                opened, deepest = _fields(text)
                inside, fields = fields + deepest, max(0, fields + opened)
            current = stack[-1]
            if current.frames + current.chain + inside * _ELEMENTS > MAX_FRAMES:
                return _refusal(token, current.levels + current.chain_levels + inside)
            previous = token
    except (
        tokenize.TokenError
    ) as error:  # Python 3.12+ tokenizes in C, which has limits of its own
        message, (line, column) = (
            error.args if len(error.args) == 2 else (error.args[0], (1, 1))
        )
        limit = next(
            (why for cause, why in _PYTHON_LIMITS.items() if cause in str(message)),
            None,
        )
        if limit is not None:
            return _message(None, line, limit), line, column
        return None
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
    return None


def _ends_operand(token: tokenize.TokenInfo) -> bool:
    """Whether an operand can end at `token` (so a `-` after it subtracts, not negates)."""
    if token.type == tokenize.OP:
        return token.string in _CLOSING
    return (
        token.type != tokenize.NAME
        or not keyword.iskeyword(token.string)
        or token.string in _VALUES
    )


def _fields(text: str) -> tuple[int, int]:
    """(fields opened minus closed, deepest) by the braces of a string token (`{{` is a brace)."""
    depth = deepest = 0
    for brace in _FIELD_BRACE.findall(text):
        if len(brace) == 1:
            depth += 1 if brace == "{" else -1
            deepest = max(deepest, depth)
    return depth, deepest


def _refusal(token: tokenize.TokenInfo, levels: int) -> tuple[str, int, int]:
    line = token.start[0]
    return _message(levels, line, None), line, token.start[1] + 1


def _message(levels: int | None, line: int, limit: str | None) -> str:
    how_deep = "" if levels is None else f"{levels} levels "
    why = limit or "deeper than jaxfix lets LibCST recurse"
    return f"nested too deeply for the parser: {how_deep}at line {line} ({why}); file left untouched"
