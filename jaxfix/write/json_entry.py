"""An entry of a JSON file, found by its keys with the byte span of each of its integers: what a
fix that resizes a mesh changes when the sizes are written in a config file the code loads.

Only the integer's bytes are replaced, so the rest of the file (its indentation, key order,
other entries, line ends) stays byte for byte. A file that is not JSON as `json.loads` reads it,
that names a key twice on the way (which one the code reads depends on the loader), or whose
entry is not a list of integers gives the reason instead. YAML files are read with PyYAML's
composer when it is installed (`find_yaml_entry`), a node an alias reuses refused; without it
(jaxfix does not depend on PyYAML), with the plain subset jaxfix/write/yaml_subset.py reads.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass

_SPACE = re.compile(r"[ \t\n\r]*")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)(?![.eE0-9])")
_MAX_DIGITS = (
    9  # a mesh's size: a longer number in a YAML file is not one jaxfix writes
)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Entry:
    """The entry's integers, each with its byte span in the file; `line` (1-based) and
    `column` (0-based, in characters) of where the entry starts, and its text as written."""

    values: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


class NotAnEntry(ValueError):
    """Why the keys do not lead to a list of integers jaxfix can change."""


def find_entry(data: bytes, keys: tuple[str | int, ...], scalar: bool = False) -> Entry:
    """With `scalar`, the entry is one integer (one axis's size: `"dp_size": 4`)."""
    try:
        text = data.decode("utf-8")
        json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise NotAnEntry(f"it is not JSON ({str(error).splitlines()[0]})") from None
    at = _skip(text, 1 if text.startswith("\ufeff") else 0)
    for key in keys:
        at = _member(text, at, key)
    if scalar:
        return _scalar_entry(text, at, keys)
    if not text.startswith("[", at):
        raise NotAnEntry(f"{_shown(keys)} is not a list")
    start, values, spans = at, [], []
    at = _skip(text, at + 1)
    while not text.startswith("]", at):
        match = _INTEGER.match(text, at)
        if match is None:
            raise NotAnEntry(f"{_shown(keys)} is not a list of integers")
        values.append(int(match.group()))
        spans.append((_byte(text, match.start()), _byte(text, match.end())))
        at = _skip(text, match.end())
        if text.startswith(",", at):
            at = _skip(text, at + 1)
    end = at + 1
    line, column = _place(text, start)
    end_line, end_column = _place(text, end)
    return Entry(
        tuple(values),
        tuple(spans),
        line,
        column,
        end_line,
        end_column,
        text[start:end],
    )


def _scalar_entry(text: str, at: int, keys: tuple[str | int, ...]) -> Entry:
    match = _INTEGER.match(text, at)
    if match is None:
        raise NotAnEntry(f"{_shown(keys)} is not an integer")
    line, column = _place(text, match.start())
    end_line, end_column = _place(text, match.end())
    return Entry(
        (int(match.group()),),
        ((_byte(text, match.start()), _byte(text, match.end())),),
        line,
        column,
        end_line,
        end_column,
        match.group(),
    )


def replaced(data: bytes, span: tuple[int, int], value: int) -> bytes:
    """`data` with the integer at `span` replaced by `value`, every other byte kept."""
    return data[: span[0]] + str(value).encode() + data[span[1] :]


def _member(text: str, at: int, key: str | int) -> int:
    """Where the value of `key` starts in the object (a string key) or array (an index) at
    `at`; a key met twice is refused."""
    opening, closing = ("{", "}") if isinstance(key, str) else ("[", "]")
    if not text.startswith(opening, at):
        kind = "an object" if isinstance(key, str) else "a list"
        raise NotAnEntry(f"the value read with [{key!r}] is not {kind}")
    at = _skip(text, at + 1)
    found: int | None = None
    index = 0
    while not text.startswith(closing, at):
        if isinstance(key, str):
            name, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            at = _skip(text, _skip(text, at) + 1)  # past the colon
            hit = name == key
        else:
            hit = index == key
        if hit:
            if found is not None:
                raise NotAnEntry(f"the key {key!r} is written twice")
            found = at
        _, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
        index += 1
    if found is None:
        raise NotAnEntry(f"there is no entry [{key!r}]")
    return found


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _byte(text: str, at: int) -> int:
    return len(text[:at].encode("utf-8"))


def _place(text: str, at: int) -> tuple[int, int]:
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1)


def _shown(keys: tuple[str | int, ...]) -> str:
    return "".join(f"[{k!r}]" for k in keys) or "the file"


def find_yaml_entry(
    data: bytes, keys: tuple[str | int, ...], scalar: bool = False
) -> Entry:
    """The same for a YAML file, with PyYAML's composer (its nodes know where they start and
    end): the file must load with `yaml.safe_load`, the entry must be a sequence of plain
    integers, and no node on the way may be reached twice (an anchor a `*alias` reuses holds
    values other entries read too)."""
    try:
        import yaml
    except ImportError:
        return find_yaml_subset_entry(data, keys, scalar)
    try:
        text = data.decode("utf-8")
        yaml.safe_load(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise NotAnEntry(f"it is not YAML ({reason})") from None
    except (ValueError, RecursionError):
        # PyYAML's int() of a 5,000-digit number, or nesting deeper than Python's stack
        raise NotAnEntry(
            "it is YAML jaxfix does not read (a number too long, or too deep)"
        ) from None
    seen: dict[int, int] = {}
    _count(root, seen)
    node = root
    for key in keys:
        if isinstance(key, str) and isinstance(node, yaml.MappingNode):
            values = [
                v
                for k, v in node.value
                if isinstance(k, yaml.ScalarNode) and k.value == key
            ]
            if len(values) > 1:
                raise NotAnEntry(f"the key {key!r} is written twice")
        elif isinstance(key, int) and isinstance(node, yaml.SequenceNode):
            values = node.value[key : key + 1] if key >= 0 else []
        else:
            kind = "a mapping" if isinstance(key, str) else "a list"
            raise NotAnEntry(f"the value read with [{key!r}] is not {kind}")
        if not values:
            raise NotAnEntry(f"there is no entry [{key!r}]")
        node = values[0]
        if seen.get(id(node), 0) > 1:
            raise NotAnEntry(f"{_shown(keys)} is an anchor other entries reuse")
    if scalar:  # one plain integer
        items = [node]
    else:
        items = node.value if isinstance(node, yaml.SequenceNode) else None
    if not items or not all(
        isinstance(i, yaml.ScalarNode)
        and i.tag == "tag:yaml.org,2002:int"
        and not i.style
        and _INTEGER.fullmatch(i.value)
        and len(i.value) <= _MAX_DIGITS
        for i in items
    ):
        raise NotAnEntry(
            f"{_shown(keys)} is not {'an integer' if scalar else 'a list of integers'}"
        )
    start, end = node.start_mark.index, node.end_mark.index
    line, column = _place(text, start)
    end_line, end_column = _place(text, end)
    values = tuple(int(i.value) for i in items)
    written = text[start:end].strip()
    return Entry(
        values,
        tuple(
            (_byte(text, i.start_mark.index), _byte(text, i.end_mark.index))
            for i in items
        ),
        line,
        column,
        end_line,
        end_column,
        written
        if "\n" not in written or scalar
        else f"[{', '.join(map(str, values))}]",
    )


def find_yaml_subset_entry(
    data: bytes, keys: tuple[str | int, ...], scalar: bool = False
) -> Entry:
    """`find_yaml_entry` where PyYAML is not installed: the file is read with the plain subset
    of YAML jaxfix/write/yaml_subset.py follows (the whole file, else refused), the entry a
    plain integer or a sequence of them."""
    from jaxfix.write.yaml_subset import Node, NotYaml, parse

    try:
        text = data.decode("utf-8")
        node: Node = parse(text)
    except UnicodeDecodeError:
        raise NotAnEntry("it is not YAML (not UTF-8)") from None
    except NotYaml as error:
        raise NotAnEntry(
            f"it is not YAML jaxfix reads without PyYAML ({error})"
        ) from None
    for key in keys:
        if isinstance(key, str) and node.items is not None:
            found = node.items.get(key)
        elif isinstance(key, int) and node.elements is not None:
            found = node.elements[key] if 0 <= key < len(node.elements) else None
        else:
            kind = "a mapping" if isinstance(key, str) else "a list"
            raise NotAnEntry(f"the value read with [{key!r}] is not {kind}")
        if found is None:
            raise NotAnEntry(f"there is no entry [{key!r}]")
        node = found
        if node.reused:
            raise NotAnEntry(f"{_shown(keys)} is an anchor other entries reuse")
    items = [node] if scalar else node.elements
    if not items or not all(
        i.text is not None
        and i.plain
        and _INTEGER.fullmatch(i.text)
        and len(i.text) <= _MAX_DIGITS
        for i in items
    ):
        raise NotAnEntry(
            f"{_shown(keys)} is not {'an integer' if scalar else 'a list of integers'}"
        )
    line, column = _place(text, node.start)
    end_line, end_column = _place(text, node.end)
    written = text[node.start : node.end].strip()
    values = tuple(int(i.text or "0") for i in items)
    return Entry(
        values,
        tuple((_byte(text, i.start), _byte(text, i.end)) for i in items),
        line,
        column,
        end_line,
        end_column,
        written
        if "\n" not in written or scalar
        else f"[{', '.join(map(str, values))}]",
    )


_TOML_TABLE = re.compile(r"[ \t]*\[([A-Za-z0-9_.\- \t]+)\][ \t]*(?:#.*)?$")
_TOML_KEY = re.compile(r"[ \t]*([A-Za-z0-9_\-]+)[ \t]*=[ \t]*")


def find_toml_entry(
    data: bytes, keys: tuple[str | int, ...], scalar: bool = False
) -> Entry:
    """The same for a TOML file (`tomllib` reads it), in its plain form only: the entry is
    `key = [4, 1]` (or one integer) on one line, under the `[table]` header that names its
    other keys (bare keys, no dotted or quoted key, no array of tables, no inline table on
    the way); what `tomllib` reads there must be the integers found."""
    try:  # Python 3.11's standard library, else the package it came from
        tomllib = importlib.import_module("tomllib")
    except ImportError:
        try:
            tomllib = importlib.import_module("tomli")
        except ImportError:
            raise NotAnEntry("no TOML reader where jaxfix runs") from None
    try:
        text = data.decode("utf-8")
        loaded = tomllib.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise NotAnEntry(f"it is not TOML ({str(error).splitlines()[0]})") from None
    value: object = loaded
    for key in keys:
        if not isinstance(key, str) or not isinstance(value, dict) or key not in value:
            raise NotAnEntry(f"there is no entry {_shown(keys)}")
        value = value[key]
    if scalar:
        if type(value) is not int:
            raise NotAnEntry(f"{_shown(keys)} is not an integer")
        expected: tuple[int, ...] = (value,)
    elif isinstance(value, list) and value and all(type(v) is int for v in value):
        expected = tuple(value)
    else:
        raise NotAnEntry(f"{_shown(keys)} is not a list of integers")
    *table, leaf = [str(k) for k in keys]
    current: list[str] = []
    found: list[tuple[int, int]] = []  # (line index, offset of the value in the line)
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.lstrip().startswith("[["):
            current = ["[["]  # an array of tables: no entry of ours below
            continue
        header = _TOML_TABLE.match(line)
        if header:
            current = [part.strip() for part in header.group(1).split(".")]
            continue
        match = _TOML_KEY.match(line)
        if match and current == table and match.group(1) == leaf:
            found.append((index, match.end()))
    if len(found) != 1:
        raise NotAnEntry(
            f"{_shown(keys)} is not written once as `key = value` under its table"
        )
    index, start = found[0]
    line = lines[index]
    offset = sum(len(earlier) + 1 for earlier in lines[:index])
    if scalar:
        match = _INTEGER.match(line, start)
        if match is None or int(match.group()) != expected[0]:
            raise NotAnEntry(f"{_shown(keys)} is not an integer on its line")
        matches = [match]
        end = match.end()
    else:
        if not line.startswith("[", start) or "]" not in line[start:]:
            raise NotAnEntry(f"{_shown(keys)} is not a list on one line")
        end = line.index("]", start) + 1
        matches = list(_INTEGER.finditer(line, start + 1, end - 1))
        rest = _INTEGER.sub("", line[start + 1 : end - 1])
        if (
            re.sub(r"[\s,]", "", rest)
            or tuple(int(m.group()) for m in matches) != expected
        ):
            raise NotAnEntry(f"{_shown(keys)} is not a plain list of integers")
    spans = tuple(
        (_byte(text, offset + m.start()), _byte(text, offset + m.end()))
        for m in matches
    )
    return Entry(
        expected,
        spans,
        index + 1,
        start,
        index + 1,
        end,
        line[start:end],
    )


def _count(node: object, seen: dict[int, int]) -> None:
    """How many times each node is reached from the root (an alias reaches its anchor again)."""
    seen[id(node)] = seen.get(id(node), 0) + 1
    if seen[id(node)] > 1:
        return
    value = getattr(node, "value", None)
    if isinstance(value, list):
        for item in value:
            for child in item if isinstance(item, tuple) else (item,):
                _count(child, seen)
