"""Which of the three errors a traceback ends with, and the meshes its message names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jaxfix.evidence import Facts
from jaxfix.fromlog.meshes import MeshReprError, read_mesh
from jaxfix.fromlog.tracebacks import Traceback

# The start of each message (jax 0.10.2 and 0.12.0.1), as tests/jax_errors.py has them.
MESSAGES = {
    "JAX001": (
        "Passing lowering_platforms via jax.export or jit(f).trace(*args).lower(lowering_platforms=...) "
        "is required when only AbstractMesh exists in a jitted computation"
    ),
    "JAX002": "use_abstract_mesh cannot change the size of the mesh. Got new mesh:",
    "JAX003": "Input sharding mesh ",
}
_SIZE = re.compile(r" with size=(\d+)")


class MessageError(ValueError):
    """The message is one of the three errors but its facts cannot be read."""


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
    for code, start in MESSAGES.items():
        if start in first and "ValueError" in first[: first.index(start)]:
            return code
    return None


def looks_like_ours(traceback: Traceback) -> bool:
    """For a traceback without a readable exception: whether its text hints at one of the three
    errors (its frames end in the JAX code that raises them), so losing it is worth an error."""
    raising = ("interpreters/pxla.py", "_src/mesh.py", "_src/shard_map.py")
    return bool(traceback.frames) and traceback.frames[-1].path.replace("\\", "/").endswith(raising)


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
                raise MessageError("its mesh sizes do not add up (the message is cut off or garbled)")
            return Facts(new=new, prev=prev)
        start = text.index(MESSAGES["JAX003"]) + len(MESSAGES["JAX003"])
        input_mesh, end = read_mesh(text, start)
        out, _ = read_mesh(text, text.index("should be equal to out_sharding mesh", end))
        return Facts(input=input_mesh, out=out)
    except (MeshReprError, ValueError) as error:
        if isinstance(error, MessageError):
            raise
        raise MessageError(f"its meshes cannot be read ({error})") from None
