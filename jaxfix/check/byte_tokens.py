"""A rule's prefilter tokens matched against a file's raw bytes (see `Rule.tokens`): shared by
the rules' base class and the prefilter that runs without importing them."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

_WORDS = re.compile(
    rb"\w+(?:\|\w+)*"
)  # `A|B|C` of plain words: a substring test does it
_WORD_CHARACTER = re.compile(rb"\w")
_QUANTIFIERS = b"?*+{"
_REPEAT = re.compile(rb"\{\d*(?:,\d*)?\}")
_CHOICE = re.compile(rb"\(\?:(\w+(?:\|\w+)+)\)")  # a group of plain words, one of them
_SPECIAL = b"\\[](){}|.^$?*+"  # the characters that do not stand for themselves
_FLAGS = re.compile(rb"(?:\(\?[aiLmsux]+\))+")  # the global flags a pattern begins with
# An escape of more than one character after the backslash (`\x0a`, `\012`, `\N{...}`) or a
# group referred back to (`\1`): what the scans below would read as literals
_LONG_ESCAPE = re.compile(rb"\\[xuUN0-9]")


class Words:
    """Which words a file's bytes contain, each looked up once per file (several rules' tokens
    share words); a word containing a word known to be absent is absent without a scan. Each
    token's match is remembered too (`matched`): every rule tested on one `Words` tests a
    token shared with another once."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.present: set[bytes] = set()
        self.absent: list[bytes] = []
        self.matched: dict[bytes, bool] = {}

    def __contains__(self, word: bytes) -> bool:
        if word in self.present:
            return True
        for missing in self.absent:
            if missing in word:
                return False
        if word in self.source:
            self.present.add(word)
            return True
        self.absent.append(word)
        return False


def _quantified(token: bytes, index: int) -> bool:
    """Whether a quantifier follows at `index` (what precedes it may not be there)."""
    return token[index : index + 1] != b"" and token[index : index + 1] in _QUANTIFIERS


def _required_words(token: bytes) -> tuple[tuple[bytes, ...], ...]:
    """What every match of the regular expression `token` contains, each entry a choice of
    literals one of which it contains: the runs of word characters outside groups and classes
    (less a quantified last character), an unquantified group of plain words (`(?:A|B)`), an
    unquantified character that stands for itself (`@`); none when the pattern has a top-level
    `|`, a flag that changes how literals match, or an escape of several characters
    (`_LONG_ESCAPE`). May be empty."""
    if re.compile(token).flags & (re.IGNORECASE | re.VERBOSE) or _LONG_ESCAPE.search(
        token
    ):
        return ()
    words: list[tuple[bytes, ...]] = []
    run, depth, index = b"", 0, 0
    while index < len(token):
        char = token[index : index + 1]
        if depth == 0 and _WORD_CHARACTER.fullmatch(char):
            run += char
            index += 1
            continue
        if run:
            words.append((run[:-1] if char and char in _QUANTIFIERS else run,))
            run = b""
        if char == b"\\":
            index += 2
            continue
        if depth == 0 and (choice := _CHOICE.match(token, index)):
            if not _quantified(token, choice.end()):
                words.append(tuple(choice.group(1).split(b"|")))
            index = choice.end()
            continue
        if depth == 0 and char not in _SPECIAL and not _quantified(token, index + 1):
            words.append((char,))
        elif char == b"[":
            index = _class_end(token, index)
        elif char == b"{" and (repeat := _REPEAT.match(token, index)):
            index = repeat.end() - 1
        elif char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
        elif char == b"|" and depth == 0:
            return ()
        index += 1
    if run:
        words.append((run,))
    return tuple(dict.fromkeys(choice for choice in words if all(choice)))


def _tail(token: bytes) -> re.Pattern[bytes] | None:
    r"""What every match of the regular expression `token` holds from its first literal
    character on: the pattern from there (after the flags it begins with), which `re`
    searches for by that character, far faster than a pattern beginning with a class, an
    assertion or a group, which it tries at every position (`[\w)\]] *@[\s(=]` ->
    `@[\s(=]`, `\bdot\s*\(` -> `dot\s*\(`). None where the pattern begins with a literal
    already, holds none outside groups and classes (an unquantified one), has a top-level
    `|`, refers back to a group (`\1`, `(?P=name)`, `(?(1)...)`) or holds an escape of
    several characters (`\x0a`)."""
    flags = _FLAGS.match(token)
    start = flags.end() if flags else 0
    if re.search(rb"\(\?P=|\(\?\(", token) or _LONG_ESCAPE.search(token):
        return None
    depth, index, found = 0, start, None
    while index < len(token):
        char = token[index : index + 1]
        if char == b"\\":
            escaped = token[index + 1 : index + 2]
            if (
                found is None
                and depth == 0
                and escaped
                and not escaped.isalnum()
                and not _quantified(token, index + 2)
            ):
                found = index
            index += 2
            continue
        if char == b"[":
            index = _class_end(token, index)
        elif char == b"{" and (repeat := _REPEAT.match(token, index)):
            index = repeat.end() - 1
        elif char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
        elif char == b"|" and depth == 0:
            return None
        elif (
            found is None
            and depth == 0
            and char not in _SPECIAL
            and not _quantified(token, index + 1)
        ):
            found = index
        index += 1
    if found is None or found == start:
        return None
    return re.compile(token[:start] + token[found:])


@functools.cache
def _matcher(token: bytes) -> Callable[[Words], bool]:
    """`token` as a test on a file's words: `in` for plain words (several times faster than
    `re.search` on an alternation, which most files fail), else the regular expression, tried
    only when the words it cannot match without are there and its tail (`_tail`) is found."""
    if _WORDS.fullmatch(token):
        alternatives = token.split(b"|")
        return lambda words: any(word in words for word in alternatives)
    pattern, required, tail = re.compile(token), _required_words(token), _tail(token)
    return lambda words: (
        all(any(word in words for word in choice) for choice in required)
        and (tail is None or tail.search(words.source) is not None)
        and pattern.search(words.source) is not None
    )


def tokens_match(tokens: tuple[tuple[bytes, ...], ...], source: bytes | Words) -> bool:
    """Whether, for some group, every token (a bytes regular expression) matches in `source`."""
    words = source if isinstance(source, Words) else Words(source)
    matched = words.matched
    for group in tokens:
        for (
            token
        ) in group:  # loops, not any(all(...)): this runs for every file of every run
            found = matched.get(token)
            if found is None:
                found = matched[token] = _matcher(token)(words)
            if not found:
                break
        else:
            return True
    return False


def _class_end(token: bytes, index: int) -> int:
    """The index of the `]` closing the class that opens at `index` (a `]` right after `[` or
    `[^` is one of its characters; an escaped one is too), or the token's length."""
    index += 2 if token[index + 1 : index + 2] == b"^" else 1
    index += 1 if token[index : index + 1] == b"]" else 0
    while index < len(token) and token[index : index + 1] != b"]":
        index += 2 if token[index : index + 1] == b"\\" else 1
    return index
