"""Refuse code nested deeper than LibCST survives, before LibCST sees it.

LibCST's parser and its tree walks recurse once per nesting level: 100,000 unary minus signs,
attribute accesses or parentheses crash the process (a C stack overflow), and a few thousand
take minutes. Real code nests nowhere near these limits.
"""

from __future__ import annotations

import io
import tokenize

MAX_BRACKETS = 200  # Python's own tokenizer refuses deeper bracket nesting
MAX_CHAIN = 1000  # operators nested in one expression; LibCST fails beyond about this anyway

_OPENING, _CLOSING = "([{", ")]}"
_SEPARATORS = frozenset({",", ";", ":", "=", ":=", "->"})
_KEYWORD_OPERATORS = frozenset({"and", "or", "not", "in", "is", "if", "else", "await", "lambda"})
_TRAILER_AFTER = frozenset({tokenize.NAME, tokenize.STRING, tokenize.NUMBER})


def too_deep(source: bytes) -> tuple[str, int, int] | None:
    """Why `source` is refused and where (1-based line and column), or None.

    Code that does not tokenize is left to the parser to report.
    """
    chains = [0]  # per open bracket: operators chained since the last separator
    previous: tokenize.TokenInfo | None = None
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            kind, text = token.type, token.string
            if kind == tokenize.NEWLINE:
                chains = [0]
            elif kind == tokenize.OP and text in _OPENING:
                if text != "{" and previous is not None and (previous.type in _TRAILER_AFTER or previous.string in _CLOSING):
                    chains[-1] += 1  # a call or subscript nests like an operator
                chains.append(0)
                if len(chains) - 1 > MAX_BRACKETS:
                    return _refusal(token, f"brackets nested more than {MAX_BRACKETS} deep (Python's own limit)")
            elif kind == tokenize.OP and text in _CLOSING:
                if len(chains) > 1:
                    chains.pop()
            elif kind == tokenize.OP and text in _SEPARATORS:
                chains[-1] = 0
            elif kind == tokenize.OP or (kind == tokenize.NAME and text in _KEYWORD_OPERATORS) or (
                kind == tokenize.STRING and previous is not None and previous.type == tokenize.STRING
            ):
                chains[-1] += 1
            else:
                previous = token if kind not in (tokenize.NL, tokenize.COMMENT) else previous
                continue
            if len(chains) - 1 + sum(chains) > MAX_CHAIN:
                return _refusal(token, f"an expression nested more than {MAX_CHAIN} levels deep")
            previous = token
    except tokenize.TokenError as error:  # Python 3.12+ tokenizes in C, which has the bracket limit
        message, (line, column) = error.args if len(error.args) == 2 else (error.args[0], (1, 1))
        if "too many nested parentheses" in str(message):
            return _refusal_at(f"brackets nested more than {MAX_BRACKETS} deep (Python's own limit)", line, column)
        return None
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
    return None


def _refusal(token: tokenize.TokenInfo, what: str) -> tuple[str, int, int]:
    return _refusal_at(what, token.start[0], token.start[1] + 1)


def _refusal_at(what: str, line: int, column: int) -> tuple[str, int, int]:
    return f"{what}: over the limit jaxfix sets to keep the parser from crashing; file left untouched", line, column
