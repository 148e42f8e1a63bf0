"""Which rule's error a traceback ends with, and the meshes its message names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jaxfix.evidence import Facts
from jaxfix.fromlog.meshes import MeshReprError, read_mesh
from jaxfix.fromlog.tracebacks import Traceback


def message_start(template: str) -> str:
    """What every message of a `Rule.raises` template starts with: its first sentence, up to the
    first hole (a notebook's `evalue` may show the first sentence alone)."""
    return template.split("{", 1)[0].split(". ", 1)[0]


def messages() -> dict[str, str]:
    """Each rule's code -> the start of the error it reports (the first of its `raises`)."""
    from jaxfix.codemods import RULES  # libcst: only a run that reads a log pays for it

    return {
        code: message_start(rule.raises[0])
        for code, rule in sorted(RULES.items())
        if rule.raises
    }


_SIZE = re.compile(r" with size=(\d{1,64})\b")  # a longer number is no size JAX printed


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
    for code, start in messages().items():
        if start in first and "ValueError" in first[: first.index(start)]:
            return code
    return None


def looks_like_ours(traceback: Traceback) -> bool:
    """For a traceback without a readable exception: whether its text hints at one of the rules'
    errors (its frames end in the JAX code that raises them), so losing it is worth an error."""
    raising = ("interpreters/pxla.py", "_src/mesh.py", "_src/shard_map.py")
    return bool(traceback.frames) and traceback.frames[-1].path.replace(
        "\\", "/"
    ).endswith(raising)


def read_facts(code: str, message: str) -> Facts:
    """The meshes the message names; MessageError if it is cut off or garbled."""
    text = message.split("\n", 1)[0]
    try:
        if code == "JAX001":
            marker = text.find("Got context mesh: ")
            return Facts(context=read_mesh(text, marker)[0]) if marker >= 0 else Facts()
        if code == "JAX002":
            new, end = read_mesh(text, text.index("Got new mesh:"))
            prev, _ = read_mesh(text, text.index("prev mesh:", end))
            sizes = [int(m) for m in _SIZE.findall(text)]
            if sizes != [new.size, prev.size]:
                raise MessageError(
                    "its mesh sizes do not add up (the message is cut off or garbled)"
                )
            return Facts(new=new, prev=prev)
        start = text.index(messages()["JAX003"]) + len(messages()["JAX003"])
        input_mesh, end = read_mesh(text, start)
        out, _ = read_mesh(
            text, text.index("should be equal to out_sharding mesh", end)
        )
        return Facts(input=input_mesh, out=out)
    except (MeshReprError, ValueError) as error:
        if isinstance(error, MessageError):
            raise
        raise MessageError(f"its meshes cannot be read ({error})") from None
