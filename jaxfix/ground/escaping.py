"""Text as each place jaxfix prints it can take it: one function per sink.

File names, code and logs come from strangers (a pull request's tree, a CI log): a newline in a
name must not start a line of its own, an ESC must not reach a terminal, a `--- a/` must not
start a patch header, a code fence must not close. Every path and message goes through the
function of the sink it is printed to; see docs/guarantees.md, "Output is escaped for where it
goes".
"""

from __future__ import annotations

import os
import re
from urllib.parse import quote

# -- text on a terminal or in a log (rich on stderr, migrate's lines) ------------------------


def _escape_char(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return repr(char)[1:-1]


_NOT_PLAIN_ASCII = re.compile(r"[^\x20-\x7e]")


def printable(text: str, *, tabs: bool = False) -> str:
    """`text` with every character Python's repr would escape shown as repr shows it (`\\x1b`,
    `\\n`, `\\r`, `\\x9b`, `\\u2028`, `\\u202e`): controls, C1 controls, line and paragraph
    separators, bidi overrides, unassigned code points. An undecodable byte of a file name is its
    byte (`\\xff`). `tabs` keeps tabs (source lines in a diff); anything else printable stays."""
    if not _NOT_PLAIN_ASCII.search(text):
        return text
    return "".join(
        c if c.isprintable() or (tabs and c == "\t") else _escape_char(c) for c in text
    )


# -- patch headers (`--diff`, the JSON format's diffs, migrate's dry-run patches) --------------

_GIT_NAMED = {
    0x07: b"\\a",
    0x08: b"\\b",
    0x09: b"\\t",
    0x0A: b"\\n",
    0x0B: b"\\v",
    0x0C: b"\\f",
    0x0D: b"\\r",
    0x22: b'\\"',
    0x5C: b"\\\\",
}


def git_path(name: bytes) -> bytes:
    """A file name in a patch header exactly as git writes it (core.quotePath, the default):
    unchanged if it holds nothing to quote, else between double quotes with C escapes for
    `"`, `\\` and the named controls, and three octal digits for other controls, DEL and every
    byte >= 0x80. `git apply` reads the name back byte for byte, so a newline in it cannot
    start a header of its own."""
    if not any(byte < 0x20 or byte >= 0x7F or byte in (0x22, 0x5C) for byte in name):
        return name
    quoted = (
        _GIT_NAMED.get(byte)
        or (b"%c" % byte if 0x20 <= byte < 0x7F else b"\\%03o" % byte)
        for byte in name
    )
    return b'"' + b"".join(quoted) + b'"'


def git_header(old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """The names after `--- ` and `+++ ` (prefixes included), as git prints them: quoted as
    git_path does, and followed by a tab when the name holds a space (git's marker of where the
    name ends, for patch readers that take a space as its end)."""

    def one(name: bytes) -> bytes:
        return git_path(name) + (b"\t" if b" " in name else b"")

    return one(old), one(new)


# -- URI references (SARIF's artifact locations) -------------------------------------------------


def uri_path(path: str) -> str:
    """A relative path as a URI reference: its bytes (an undecodable name's own) percent-encoded
    except letters, digits, `-._~` and `/`, so a `:`, `#`, space or newline stays part of it."""
    return quote(os.fsencode(path), safe="/")


# -- GitHub Actions workflow commands (`--format github`) ----------------------------------------


def workflow_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does (`escapeData`). An
    undecodable byte of a file name becomes U+FFFD, as the runner reads it (stdout is UTF-8)."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A workflow command's property value (`escapeProperty`): also `:` and `,`."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


# -- Markdown (migrate's report.md) -----------------------------------------------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|!~&])")
_BACKTICKS = re.compile(r"`+")


def no_mentions(text: str) -> str:
    """Markdown or HTML text (outside code, where GitHub and GitLab look for none) with a
    zero-width space (`&#8203;`) after each `@`: it reads the same, but `@user`, `@org/team`,
    `@here` or `@all` taken from a stranger's code or file name notifies nobody. The space is
    written as an entity so the text stays printable (`&#64;` alone would not do: the hosts
    decode entities before they look for mentions)."""
    return text.replace("@", "@&#8203;")


def markdown_text(text: str) -> str:
    """Plain text on one Markdown line (a list item, a heading, a table cell): printable, and
    every character Markdown gives a meaning backslash-escaped, so no link, image, emphasis,
    HTML or cell border comes out of it."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", printable(text))


def markdown_code(text: str) -> str:
    """An inline code span holding `text` (printable) whatever backticks it holds: delimited by
    one more backtick than its longest run, padded with spaces where it starts or ends with one."""
    text = printable(text)
    fence = "`" * (max(map(len, _BACKTICKS.findall(text)), default=0) + 1)
    padding = (
        " " if text.startswith("`") or text.endswith("`") or not text.strip(" ") else ""
    )
    return f"{fence}{padding}{text}{padding}{fence}"


def markdown_message(text: str) -> str:
    """A jaxfix message in Markdown (a review comment's body): its `code` spans stay code spans
    (each rewritten by markdown_code), the text between them is markdown_text. A backtick from
    the user's code only moves where a span ends: every piece is escaped for what it becomes,
    a backtick opening nothing is shown as one, and the text mentions nobody (no_mentions)."""
    parts = text.split("`")
    out = []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            out.extend([no_mentions(markdown_text(part))] if part else [])
        elif (
            index == len(parts) - 1
        ):  # an odd number of backticks: the last opens no span
            out.append(no_mentions(markdown_text("`" + part)))
        elif part:
            if out and out[-1].endswith(
                "`"
            ):  # two spans side by side would merge their fences
                out.append(" ")
            out.append(markdown_code(part))
    return "".join(out)


def markdown_block(text: str) -> list[str]:
    """A fenced code block holding `text` (printable, tabs kept): the fence is longer than any
    run of backticks in it, so no line of the text can close it."""
    lines = [printable(line, tabs=True) for line in text.splitlines()]
    fence = "`" * max(
        [3, *(len(run) + 1 for line in lines for run in _BACKTICKS.findall(line))]
    )
    return [fence + "text", *lines, fence]
