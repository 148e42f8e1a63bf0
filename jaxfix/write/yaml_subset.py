"""The entry of a YAML file jaxfix may change, found without PyYAML (which jaxfix does not depend
on: the user's command has its own). Only a plain subset of YAML is read, with every node's
place in the text: block mappings of plain (or simply quoted) keys, block sequences of scalars,
one-line flow sequences (`[4, 4]`), plain scalars and `#` comments. Anything else in the file
(an anchor, an alias, a tag, a block or multi-line scalar, a flow mapping, a directive, several
documents, a tab in the indentation, a key written twice, a key YAML 1.1 reads as a boolean or
null) makes the whole file refused: what jaxfix reads must be what `yaml.safe_load` reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")
_QUOTED_KEY = re.compile(r"\"([A-Za-z0-9_.\-/ ]*)\"|'([A-Za-z0-9_.\-/ ]*)'")
# Keys YAML 1.1 (PyYAML's) resolves to booleans or null: not the string the code reads.
_NOT_STRINGS = frozenset(
    {"y", "yes", "n", "no", "true", "false", "on", "off", "null", "~"}
)
_REFUSED = "&*!|>{}%@`"  # anchors, aliases, tags, block scalars, flow maps, directives
_ANCHOR = re.compile(r"([&*])([A-Za-z0-9_\-]+)(?= |$)")


class NotYaml(ValueError):
    """Why the file is not in the subset jaxfix reads."""


@dataclass
class Node:
    """A mapping (`items`), a sequence (`elements`) or a scalar (`text`), spanning
    `start`..`end` (character offsets in the file)."""

    start: int
    end: int
    items: dict[str, Node] | None = None
    elements: list[Node] | None = None
    text: str | None = None
    plain: bool = True  # a scalar written without quotes
    # an anchor (`key: &name`) that an alias (`other: *name`) reuses: its entries are read
    # through more than one key
    reused: bool = False


@dataclass(frozen=True)
class _Line:
    indent: int
    content: str  # without the indentation and any comment, right-stripped
    at: int  # offset of `content` in the file
    number: int  # 1-based


def parse(text: str) -> Node:
    """The document's root node, or NotYaml saying why the file is not read. An anchor on a
    mapping's value (`serve: &serve`) and an alias as a whole value (`wide: *serve`) are
    followed: the anchored node is marked `reused`, the alias's key holds that same node."""
    lines = _lines(text)
    if not lines:
        raise NotYaml("the file holds no entry")
    anchors: dict[str, Node] = {}
    node, end = _block(lines, 0, lines[0].indent, anchors)
    if end != len(lines):
        raise NotYaml(f"line {lines[end].number} is not where its indentation puts it")
    return node


def _lines(text: str) -> list[_Line]:
    found: list[_Line] = []
    offset = 0
    started = False
    for number, raw in enumerate(text.split("\n"), 1):
        at, offset = offset, offset + len(raw) + 1
        line = raw.rstrip("\r")
        body = line.lstrip(" ")
        if body.startswith("\t") or "\t" in line[: len(line) - len(body)]:
            raise NotYaml(f"line {number} is indented with a tab")
        content = _without_comment(body, number).rstrip(" \t")
        if not content:
            continue
        if content == "---" and not started:
            started = True
            continue
        if content in ("---", "...") or content.startswith(("--- ", "%")):
            raise NotYaml(f"line {number} starts another document or a directive")
        if content == "?" or content.startswith("? "):
            raise NotYaml(f"line {number} has a complex key")
        started = True
        indent = len(line) - len(body)
        found.append(_Line(indent, content, at + indent, number))
    return found


def _without_comment(body: str, number: int) -> str:
    """`body` up to a `#` comment (one at its start or after a space, outside quotes); NotYaml
    for a character of YAML this reader does not follow."""
    quote = None
    for index, char in enumerate(body):
        if quote is not None:
            if char == quote:
                quote = None
            elif char == "\\" and quote == '"':
                raise NotYaml(f"line {number} has an escape in a quoted string")
            continue
        if char in "\"'" and (index == 0 or body[index - 1] in " [,:-"):
            quote = char
        elif char == "#" and (index == 0 or body[index - 1] in " \t"):
            return body[:index]
        elif (
            char in "&*"
            and index > 1
            and body[index - 2 : index] == ": "
            and _ANCHOR.match(body, index)
        ):
            continue  # an anchor or alias as a mapping value: `_mapping` reads it
        elif char in _REFUSED:
            raise NotYaml(
                f"line {number} holds {char!r}, which this reader does not follow"
            )
    if quote is not None:
        raise NotYaml(f"line {number} has a quoted string that does not end there")
    return body


def _block(
    lines: list[_Line], index: int, indent: int, anchors: dict[str, Node]
) -> tuple[Node, int]:
    first = lines[index]
    if first.indent != indent:
        raise NotYaml(f"line {first.number} is not where its indentation puts it")
    if _is_item(first.content):
        return _sequence(lines, index, indent)
    return _mapping(lines, index, indent, anchors)


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


def _mapping(
    lines: list[_Line], index: int, indent: int, anchors: dict[str, Node]
) -> tuple[Node, int]:
    items: dict[str, Node] = {}
    start = lines[index].at
    end = start
    while index < len(lines) and lines[index].indent == indent:
        line = lines[index]
        if _is_item(line.content):
            raise NotYaml(f"line {line.number} mixes a list item into a mapping")
        key, rest, rest_at = _key(line)
        if key in items:
            raise NotYaml(f"the key {key!r} is written twice (line {line.number})")
        index += 1
        anchor = _ANCHOR.match(rest)
        if anchor is not None and anchor.group(1) == "*":
            if anchor.end() != len(rest) or anchor.group(2) not in anchors:
                raise NotYaml(
                    f"the alias at line {line.number} names no anchor before it"
                )
            reused = anchors[anchor.group(2)]
            reused.reused = True
            items[key] = reused
            continue
        name = None
        if anchor is not None:  # `key: &name` then its value
            name = anchor.group(2)
            if name in anchors:
                raise NotYaml(f"the anchor {name!r} is set twice (line {line.number})")
            rest = rest[anchor.end() :].lstrip(" ")
            rest_at = line.at + len(line.content) - len(rest)
        if rest:
            if index < len(lines) and lines[index].indent > indent:
                raise NotYaml(
                    f"the value at line {line.number} goes on to the next line"
                )
            value = _inline(rest, rest_at, line.number)
        elif index < len(lines) and lines[index].indent > indent:
            value, index = _block(lines, index, lines[index].indent, anchors)
        elif (
            index < len(lines)
            and lines[index].indent == indent
            and _is_item(lines[index].content)
        ):  # a list written at its key's indentation
            value, index = _sequence(lines, index, indent)
        else:
            value = Node(rest_at, rest_at, text="")  # null
        if name is not None:
            anchors[name] = value
        items[key] = value
        end = max(end, value.end, line.at + len(line.content))
    if index < len(lines) and lines[index].indent > indent:
        raise NotYaml(
            f"line {lines[index].number} is not where its indentation puts it"
        )
    return Node(start, end, items=items), index


def _key(line: _Line) -> tuple[str, str, int]:
    content = line.content
    quoted = _QUOTED_KEY.match(content)
    if quoted:
        key, after = quoted.group(1) or quoted.group(2) or "", quoted.end()
    else:
        plain = _PLAIN_KEY.match(content)
        if plain is None:
            raise NotYaml(f"line {line.number} has no key this reader follows")
        key, after = plain.group(), plain.end()
        if key.lower() in _NOT_STRINGS:
            raise NotYaml(
                f"the key {key!r} (line {line.number}) is not a string in YAML 1.1"
            )
    if content[after : after + 1] != ":" or content[after + 1 : after + 2] not in (
        "",
        " ",
    ):
        raise NotYaml(f"line {line.number} has no key this reader follows")
    rest = content[after + 1 :]
    stripped = rest.lstrip(" ")
    return key, stripped, line.at + after + 1 + (len(rest) - len(stripped))


def _sequence(lines: list[_Line], index: int, indent: int) -> tuple[Node, int]:
    elements: list[Node] = []
    start = lines[index].at
    end = start
    while (
        index < len(lines)
        and lines[index].indent == indent
        and _is_item(lines[index].content)
    ):
        line = lines[index]
        item = line.content[1:].lstrip(" ")
        at = line.at + len(line.content) - len(item)
        index += 1
        if not item or _PLAIN_KEY.match(item) and ":" in item or item.startswith("- "):
            raise NotYaml(f"line {line.number} nests a block in a list item")
        if index < len(lines) and lines[index].indent > indent:
            raise NotYaml(f"the item at line {line.number} goes on to the next line")
        value = _inline(item, at, line.number)
        elements.append(value)
        end = value.end
    return Node(start, end, elements=elements), index


def _inline(text: str, at: int, number: int) -> Node:
    """A one-line value: a flow sequence of scalars, or a scalar."""
    if text.startswith("["):
        if not text.endswith("]") or "[" in text[1:] or "]" in text[:-1]:
            raise NotYaml(f"the list at line {number} is not written on one line alone")
        inner = text[1:-1]
        elements = []
        offset = 1
        if inner.strip():
            for part in inner.split(","):
                stripped = part.strip(" ")
                if not stripped:
                    raise NotYaml(f"the list at line {number} has an empty item")
                lead = len(part) - len(part.lstrip(" "))
                elements.append(_scalar(stripped, at + offset + lead, number))
                offset += len(part) + 1
        return Node(at, at + len(text), elements=elements)
    if ": " in text or text.endswith(":"):
        raise NotYaml(f"line {number} holds a mapping inside a value")
    return _scalar(text, at, number)


def _scalar(text: str, at: int, number: int) -> Node:
    if text[0] in "\"'":
        if len(text) < 2 or text[-1] != text[0] or text[0] in text[1:-1]:
            raise NotYaml(f"the string at line {number} is not one quoted string")
        return Node(at, at + len(text), text=text[1:-1], plain=False)
    if any(c in text for c in ",[]&*"):
        raise NotYaml(f"the value at line {number} is not one plain scalar")
    return Node(at, at + len(text), text=text)
