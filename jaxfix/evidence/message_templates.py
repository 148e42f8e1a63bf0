"""A rule's `raises` templates: the text of a JAX error with a hole for each part that varies.

A hole is written as `str.format` writes a field, `{kind}` or `{kind:role}`: the kind says what
JAX prints there (HOLE_KINDS), the role names the mesh for the rule (`{mesh:context}`,
`{size:new}` is the size of the `new` mesh; `{count:devices}` a number the message states of
something that is no mesh, and `{count:abstract}` one that must be the size of the `abstract`
mesh JAX held, where the record has it). `--from-log` and the repair recorder read each
role's mesh from a message by its template alone, so a rule declares the meshes its message
names in its own module. A role ending in `?` may be missing: a message cut off before it still
counts, without that mesh. A leaf module: the analysis, the log readers and the recorder's
set-up all read templates through it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

# What each kind of hole stands for, as a regular expression: a mesh as JAX prints one (jax
# 0.10.2 and 0.12.0.1): `AbstractMesh('x': 2, axis_types=(Explicit,), device_kind=cpu, ...)`,
# `Mesh(axis_sizes=(2,), ...)`, `Mesh()`; a space follows only ", " or ": ". (A device kind
# with a space in it, `TPU v4`, is the one thing this leaves out.) A size is a mesh's size;
# text is anything else JAX prints on the line (device ids, a platform), never read.
HOLE_KINDS = {
    "mesh": r"Mesh\(\)|(Abstract)?Mesh\([\w'=().,\[\]-]+((, |: )[\w'=().,\[\]-]+)*\)",
    "size": r"[0-9]+",
    "count": r"[0-9]+",
    "text": r"[ -~]*",
}
_ROLE = re.compile(r"[a-z_][a-z0-9_]*\??")


@dataclass(frozen=True)
class Hole:
    kind: str  # a key of HOLE_KINDS
    role: str | None  # the mesh it names or sizes; None: not read
    optional: bool  # the message may stop before it
    marker: str  # the text that leads up to it: the end of the literal before it

    @property
    def is_mesh(self) -> bool:
        return self.kind == "mesh" and self.role is not None


def holes(template: str) -> tuple[Hole, ...]:
    """The template's holes in order; ValueError for a hole that is no kind with a role."""
    found = []
    for literal, kind, role, conversion in string.Formatter().parse(template):
        if kind is None:
            continue
        if (
            kind not in HOLE_KINDS
            or conversion
            or (role and (kind == "text" or not _ROLE.fullmatch(role)))
        ):
            raise ValueError(
                f"{{{kind}:{role}}} in {template!r} is no hole: write {{mesh}}, {{size}}, "
                "{text}, {mesh:role}, {size:role} or {count:role} (a role is a lowercase name, `?` if "
                "it may be missing)"
            )
        # What leads up to the hole: its literal's last sentence (a whole literal, after a hole).
        marker = literal.rsplit(". ", 1)[-1]
        found.append(
            Hole(
                kind,
                (role.rstrip("?") or None) if role else None,
                bool(role and role.endswith("?")),
                marker,
            )
        )
    return tuple(found)


def check(templates: Iterable[str]) -> None:
    """ValueError unless every hole is well formed and every sized role is a mesh's role."""
    for template in templates:
        found = holes(template)
        meshes = {h.role for h in found if h.is_mesh}
        for hole in found:
            if (
                hole.kind == "size"
                and hole.role is not None
                and hole.role not in meshes
            ):
                raise ValueError(
                    f"{{size:{hole.role}}} in {template!r} sizes no {{mesh:{hole.role}}}"
                )


def exceptions(
    error: str | tuple[str, ...], templates: tuple[str, ...]
) -> tuple[str, ...]:
    """The builtin exception each template's message is raised with: `Rule.error` names one
    for them all, or one per template (JAX raises `jit requires a non-empty mesh` as a
    RuntimeError, the context mesh's errors as ValueError)."""
    if isinstance(error, str):
        return (error,) * len(templates)
    if len(error) != len(templates) or not all(isinstance(e, str) for e in error):
        raise ValueError(
            f"error {error!r}: one exception name, or one per `raises` message"
        )
    return tuple(error)


def roles(templates: Iterable[str]) -> tuple[str, ...]:
    """The roles of the meshes the templates name, in order of first appearance."""
    return tuple(
        dict.fromkeys(
            h.role for t in templates for h in holes(t) if h.is_mesh and h.role
        )
    )


def start(template: str) -> str:
    """What every message of the template starts with: its first sentence, up to the first hole
    (a notebook's `evalue` may show the first sentence alone)."""
    return template.split("{", 1)[0].split(". ", 1)[0]


def pattern(template: str) -> str:
    """A regular expression matching the template's messages, its holes left open."""
    parts = []
    for literal, kind, _role, _conversion in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if kind is not None:
            parts.append(
                r"\d+" if kind in ("size", "count") else ".*?"
            )  # as the recorder always had
    return "".join(parts)
