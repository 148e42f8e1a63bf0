"""Which rule's error a traceback ends with, and the meshes its message names.

Both come from the rules' `raises` templates (jaxfix/evidence/message_templates.py): a message is the
error of the rule one of whose templates it shows, raised as that template's exception (its
first sentence, going on as the template does, hole by hole, as far as the line goes), and
each `{mesh:role}` hole of the template it shows is read as that role's mesh.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxfix.evidence.facts import Facts, MeshFacts
from jaxfix.evidence.message_templates import HOLE_KINDS, exceptions, holes, start
from jaxfix.fromlog.meshes import MeshReprError, read_mesh
from jaxfix.fromlog.tracebacks import Traceback
from jaxfix.sources.file_io import UNDECODABLE

if TYPE_CHECKING:
    from jaxfix.codemods.base import Rule


def message_start(template: str) -> str:
    """What every message of a `Rule.raises` template starts with (its first sentence)."""
    return start(template)


def rules() -> dict[str, type[Rule]]:
    """The rules that name a JAX error, by code."""
    from jaxfix.codemods import RULES  # libcst: only a run that reads a log pays for it

    return {code: rule for code, rule in sorted(RULES.items()) if rule.raises}


_SIZE = re.compile(r"\d{1,64}\b")  # a longer number is no size JAX printed


class MessageError(ValueError):
    """The message is a rule's error but its facts cannot be read."""


@dataclass(frozen=True)
class Occurrence:
    code: str
    facts: Facts
    traceback: Traceback


def error_code(traceback: Traceback) -> str | None:
    """The rule whose error this traceback ends with; None for any other exception."""
    if traceback.exception is None:
        return None
    first = traceback.exception.split("\n", 1)[0]
    for code, rule in rules().items():
        for template, name in zip(rule.raises, exceptions(rule.error, rule.raises)):
            shown = _shown_from(template, first)
            if shown is not None and name in first[:shown]:
                return code
    return None


def _shown_from(template: str, line: str) -> int | None:
    """Where in `line` the template's message starts (after `Type: `), if the line shows it;
    else None."""
    at = line.find(start(template))
    while at >= 0:
        if line[:at].endswith(": ") and _goes_on_as(template, line[at:]):
            return at
        at = line.find(start(template), at + 1)
    return None


_MESH = re.compile(HOLE_KINDS["mesh"])
_DIGITS = re.compile(HOLE_KINDS["size"])
_MESH_OPENINGS = ("Mesh(", "AbstractMesh(")


def _goes_on_as(template: str, text: str) -> bool:
    """Whether `text` (from the template's first sentence on) goes on as the template does,
    as far as it goes: each literal part in turn, and between them what its hole stands for (a
    mesh as JAX prints one, a size's digits, any text up to the next literal). One opening may
    start several errors ("Received incompatible devices for jitted computation. Got argument
    ..." or "... Got jit's context mesh ..."; "Context mesh " starts JAX011's "Context mesh
    AbstractMesh(...) should match the mesh of sharding ..." and `explicit_axes`' "Context mesh
    cannot be empty"), and a notebook's `evalue` may stop after the first sentence. Where that
    sentence goes on past a hole ("Context mesh {mesh} should match ..."), the text must show
    that hole and what follows it: "Context mesh " alone says too little."""
    parts = list(string.Formatter().parse(template))
    sentence_before_hole = ". " in parts[0][0]
    position = 0
    for index, (literal, kind, _role, _conversion) in enumerate(parts):
        shown = text[position : position + len(literal)]
        if not literal.startswith(shown):
            return False
        position += len(literal)
        if kind is None:
            return True  # the template ends (JAX may add its own text after)
        if position >= len(text):  # cut off in the literal
            return index > 0 or sentence_before_hole
        following = parts[index + 1][0] if index + 1 < len(parts) else ""
        end = _hole_end(kind, text, position, following)
        if end is None:
            return False
        if end >= len(text):  # cut off in the hole, or the hole ends the template
            return index > 0 or sentence_before_hole or not following
        position = end
    return True


def _hole_end(kind: str, text: str, position: int, following: str) -> int | None:
    """Where the text of a hole of `kind` at `position` ends (the length of `text` if it stops
    inside it), or None if what is there is no such hole's text."""
    if kind in ("size", "count"):
        digits = _DIGITS.match(text, position)
        return digits.end() if digits else None
    if kind == "mesh":
        mesh = _MESH.match(text, position)
        if mesh is not None:
            return mesh.end()
        rest = text[position:]
        if not any(
            rest.startswith(opening) or opening.startswith(rest)
            for opening in _MESH_OPENINGS
        ):
            return None
        # a mesh cut off, or in a form the pattern leaves out (a device kind with a space)
    found = text.find(following, position) if following else -1
    return found if found >= 0 else len(text)


def _shown_anywhere(template: str, text: str) -> bool:
    """Whether the template's message goes on as it does from some place its opening is at."""
    at = text.find(start(template))
    while at >= 0:
        if _goes_on_as(template, text[at:]):
            return True
        at = text.find(start(template), at + 1)
    return False


def looks_like_ours(traceback: Traceback) -> bool:
    """For a traceback without a readable exception: whether its text hints at one of the rules'
    errors (its frames end in the JAX code that raises them), so losing it is worth an error."""
    raising = tuple(path for rule in rules().values() for path in rule.raised_in)
    return bool(traceback.frames and raising) and traceback.frames[-1].path.replace(
        "\\", "/"
    ).endswith(raising)


def read_facts(code: str, message: str) -> Facts:
    """The meshes the message names, by the roles of the rule's `raises`; MessageError if it is
    cut off or garbled."""
    return facts_from(rules()[code].raises, message)


def template_of(templates: tuple[str, ...], message: str) -> str:
    """The template whose first sentence the message's first line shows (the first that
    shows all its text, else the first that starts it, else the first)."""
    text = message.split("\n", 1)[0]
    return next(
        (t for t in templates if start(t) in text and _shown_anywhere(t, text)),
        next((t for t in templates if start(t) in text), templates[0]),
    )


def facts_from(templates: tuple[str, ...], message: str) -> Facts:
    """The meshes of the first template whose first sentence the message's first line shows
    (else the first template's), each read after the text the template puts before it."""
    text = message.split("\n", 1)[0]
    template = template_of(templates, message)
    meshes: dict[str, MeshFacts] = {}
    sizes: dict[str, int | None] = {}
    counts: dict[str, int] = {}
    position = 0
    try:
        for hole in holes(template):
            found = text.find(hole.marker, position)
            if hole.role is None:  # not read: only passed
                position = found + len(hole.marker) if found >= 0 else position
                continue
            if found < 0 and hole.optional:
                if UNDECODABLE.search(text, position):  # they may hide it
                    raise MeshReprError(
                        f"no {hole.marker!r} in it, and it holds bytes the log's encoding cannot decode"
                    )
                break
            if found < 0 and hole.kind == "size":
                sizes[hole.role] = None
                continue
            if found < 0 and hole.kind == "count":  # cut off before it: not stated
                continue
            if found < 0:
                raise MeshReprError(f"no {hole.marker!r} in it")
            position = found + len(hole.marker)
            if hole.kind == "count":
                number = _SIZE.match(text, position)
                if number is not None and len(number.group(0)) < 10:
                    counts[hole.role] = int(number.group(0))
                position = number.end() if number else position
            elif hole.kind == "size":
                size = _SIZE.match(text, position)
                sizes[hole.role] = int(size.group(0)) if size else None
                position = size.end() if size else position
            else:
                meshes[hole.role], position = read_mesh(text, position)
    except (MeshReprError, ValueError) as error:
        raise MessageError(f"its meshes cannot be read ({error})") from None
    for role, size in sizes.items():
        if role not in meshes or size != meshes[role].size:
            raise MessageError(
                "its mesh sizes do not add up (the message is cut off or garbled)"
            )
    return Facts.of(meshes, counts)
