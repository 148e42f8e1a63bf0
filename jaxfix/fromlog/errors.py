"""Which rule's error a traceback ends with, and the meshes its message names.

Both come from the rules' `raises` templates (jaxfix/evidence/message_templates.py): a message is the
error of the rule whose first template's first sentence it shows (going on as that template
does up to its first hole, as far as the line goes), and each `{mesh:role}` hole
of the template it shows is read as that role's mesh.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxfix.evidence.facts import Facts, MeshFacts
from jaxfix.evidence.message_templates import holes, start
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


def messages() -> dict[str, str]:
    """Each rule's code -> the start of the error it reports (the first of its `raises`)."""
    return {code: message_start(rule.raises[0]) for code, rule in rules().items()}


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
        opening = message_start(rule.raises[0])
        if (
            opening in first
            and rule.error in first[: first.index(opening)]
            and _goes_on_as(rule.raises[0], first[first.index(opening) :])
        ):
            return code
    return None


def _goes_on_as(template: str, text: str) -> bool:
    """Whether `text` (from the template's first sentence on) goes on as the template does up
    to its first hole, as far as it goes: one first sentence may open two errors
    ("Received incompatible devices for jitted computation. Got argument ..." or "... Got
    jit's context mesh ..."), and a notebook's `evalue` may stop after it."""
    literal = template.split("{", 1)[0]
    shown = min(len(literal), len(text))
    return text[:shown] == literal[:shown]


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


def facts_from(templates: tuple[str, ...], message: str) -> Facts:
    """The meshes of the first template whose first sentence the message's first line shows
    (else the first template's), each read after the text the template puts before it."""
    text = message.split("\n", 1)[0]
    template = next((t for t in templates if start(t) in text), templates[0])
    meshes: dict[str, MeshFacts] = {}
    sizes: dict[str, int | None] = {}
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
            if found < 0:
                raise MeshReprError(f"no {hole.marker!r} in it")
            position = found + len(hole.marker)
            if hole.kind == "size":
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
    return Facts.of(meshes)
