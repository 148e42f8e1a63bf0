"""JAX's mesh reprs, as its error messages print them (checked on jax 0.10.2 and 0.12.0.1):

    AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))
    AbstractMesh('x': 2, axis_types=(Auto,), device_kind=cpu, num_cores=None, platform=cpu)
    AbstractMesh((), axis_types=())        Mesh()
    Mesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))
    Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))   (repr)

Axis names are printed between quotes without escaping, so a name may itself hold a quote.
An axis size is at least 1 and has at most 7 digits (JAX sizes an axis by devices, or by the
devices an abstract mesh stands for: ten million is beyond any machine); anything else is not a
mesh JAX printed. Reading is linear in the text, and errors quote at most the start of it. A
mesh holding bytes the log could not decode is none (they may hide a size, a name, a kind).
"""

from __future__ import annotations

import ast
import re

from jaxfix.evidence.facts import MeshFacts
from jaxfix.sources.file_io import UNDECODABLE

_START = re.compile(r"\b(AbstractMesh|Mesh)\(")
_AXIS_END = re.compile(
    r"': (\d+)(?=, |\Z)"
)  # what ends an axis: `': SIZE` before the next axis or the end
MAX_SIZE_DIGITS = 7
_QUOTED = 80  # characters of a log's text an error quotes
_TYPES = re.compile(r"axis_types=\((?P<types>[^()]*)\)")
_KEYWORD = re.compile(r"(?P<key>axis_sizes|axis_names)=(?P<value>\([^()]*\))")


class MeshReprError(ValueError):
    """The text is not a whole mesh repr (cut off, or not what JAX prints)."""


def _closing(text: str, start: int) -> int:
    """Index just past the parenthesis that closes the one at `start` (an axis name holding a
    parenthesis would confuse it; JAX's own names never do)."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
    raise MeshReprError("the mesh is cut off")


def read_mesh(text: str, position: int = 0) -> tuple[MeshFacts, int]:
    """The mesh repr that starts at or after `position`, and the index just past it."""
    start = _START.search(text, position)
    if start is None:
        raise MeshReprError("no mesh found")
    end = _closing(text, start.end() - 1)
    if UNDECODABLE.search(text, position, end):  # in it, or in what leads to it
        raise MeshReprError(
            f"{quoted(text[position:end])} holds bytes the log's encoding cannot decode"
        )
    return parse_mesh(text[start.start() : end]), end


def parse_mesh(text: str) -> MeshFacts:
    kind = "abstract" if text.startswith("AbstractMesh(") else "concrete"
    body = text[text.index("(") + 1 : -1]
    types_match = _TYPES.search(body)
    types = (
        tuple(t.strip() for t in types_match["types"].split(",") if t.strip())
        if types_match
        else None
    )
    device = "device_kind=" in body or "platform=" in body
    keywords = {m["key"]: m["value"] for m in _KEYWORD.finditer(body)}
    if keywords:
        try:
            sizes = tuple(ast.literal_eval(_sizes_only(keywords["axis_sizes"])))
            names = tuple(ast.literal_eval(keywords["axis_names"]))
        except (KeyError, ValueError, SyntaxError, MemoryError, RecursionError):
            raise MeshReprError(f"unreadable mesh {quoted(text)}") from None
    else:
        axes_text = body[: types_match.start()].rstrip(", ") if types_match else body
        if axes_text in ("", "()"):
            names, sizes = (), ()
        else:
            names, sizes = _axes(axes_text)
    if kind == "concrete":
        device = True  # a concrete mesh has devices
    if (
        types is not None
        and len(types) != len(sizes)
        or any(not isinstance(s, int) for s in sizes)
    ):
        raise MeshReprError(f"inconsistent mesh {quoted(text)}")
    if any(s < 1 for s in sizes):
        raise MeshReprError(
            f"axis size {min(sizes)} in {quoted(text)}: JAX's axis sizes are at least 1"
        )
    return MeshFacts(kind, tuple(map(str, names)), sizes, types, device)


def _axes(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """`'x': 2, 'y': 4` as names and sizes; a name ends at the first `': SIZE` followed by the next
    axis or the end (as a name may hold quotes). One pass over the text."""
    names: list[str] = []
    sizes: list[int] = []
    position = 0
    for end in _AXIS_END.finditer(text):
        if (
            end.start() <= position + 1 or text[position] != "'"
        ):  # an empty name, or no quote to start one
            continue
        names.append(text[position + 1 : end.start()])
        sizes.append(_size(end[1], text))
        position = end.end() + 2  # past the `, ` before the next axis
    if position != len(text) + 2:
        raise MeshReprError(f"unreadable mesh axes {quoted(text)}")
    return tuple(names), tuple(sizes)


def _size(digits: str, text: str) -> int:
    if len(digits) > MAX_SIZE_DIGITS:
        raise MeshReprError(
            f"an axis size of {len(digits)} digits in {quoted(text)}: JAX's have at most {MAX_SIZE_DIGITS}"
        )
    return int(digits)


def _sizes_only(value: str) -> str:
    """`(2, 4)` from a repr's `axis_sizes=`, refused before evaluating when a size is too long."""
    for digits in re.findall(r"\d+", value):
        _size(digits, value)
    return value


def quoted(text: str) -> str:
    """The text for an error message: its start only, when it is long (a log line can be 1 MB)."""
    if len(text) <= _QUOTED:
        return repr(text)
    return f"{text[:_QUOTED]!r}... ({len(text)} characters)"
