"""JAX's mesh reprs, as its error messages print them (checked on jax 0.10.2 and 0.12.0.1):

    AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))
    AbstractMesh('x': 2, axis_types=(Auto,), device_kind=cpu, num_cores=None, platform=cpu)
    AbstractMesh((), axis_types=())        Mesh()
    Mesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))
    Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))   (repr)

Axis names are printed between quotes without escaping, so a name may itself hold a quote.
"""

from __future__ import annotations

import ast
import re

from jaxfix.evidence import MeshFacts

_START = re.compile(r"\b(AbstractMesh|Mesh)\(")
_AXIS = re.compile(r"'(?P<name>.+?)': (?P<size>\d+)(?=, |\)$)")
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
    return parse_mesh(text[start.start():end]), end


def parse_mesh(text: str) -> MeshFacts:
    kind = "abstract" if text.startswith("AbstractMesh(") else "concrete"
    body = text[text.index("(") + 1:-1]
    types_match = _TYPES.search(body)
    types = tuple(t.strip() for t in types_match["types"].split(",") if t.strip()) if types_match else None
    device = "device_kind=" in body or "platform=" in body
    keywords = {m["key"]: m["value"] for m in _KEYWORD.finditer(body)}
    if keywords:
        try:
            sizes = tuple(ast.literal_eval(keywords["axis_sizes"]))
            names = tuple(ast.literal_eval(keywords["axis_names"]))
        except (KeyError, ValueError, SyntaxError):
            raise MeshReprError(f"unreadable mesh {text!r}") from None
    else:
        axes_text = body[: types_match.start()].rstrip(", ") if types_match else body
        if axes_text in ("", "()"):
            names, sizes = (), ()
        else:
            axes = list(_AXIS.finditer(axes_text + ")"))
            if not axes or ", ".join(m.group(0) for m in axes) != axes_text:
                raise MeshReprError(f"unreadable mesh axes {axes_text!r}")
            names = tuple(m["name"] for m in axes)
            sizes = tuple(int(m["size"]) for m in axes)
    if kind == "concrete":
        device = True  # a concrete mesh has devices
    if types is not None and len(types) != len(sizes) or any(not isinstance(s, int) for s in sizes):
        raise MeshReprError(f"inconsistent mesh {text!r}")
    return MeshFacts(kind, tuple(map(str, names)), sizes, types, device)
