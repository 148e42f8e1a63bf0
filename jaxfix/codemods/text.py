"""How rules name places in their messages: locations, related lines, "not fixed: ..." notes
(code itself is quoted as written: `Analysis.text`, cut with jaxfix/ground/quoting.py)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.callers import CallerWay
from jaxfix.evidence.facts import Evidence
from jaxfix.ground.diagnostics import Location, Related
from jaxfix.settings.jax_version import parse_version


def location(analysis: Analysis, node: ast.AST) -> Location:
    """Where `node` starts, 1-based line and column."""
    line, column = analysis.span(node).start
    return Location(line, column + 1)


def related(analysis: Analysis, message: str, node: ast.AST) -> Related:
    return Related(message, location(analysis, node))


# The related place of a report confirmed by a run's error raised elsewhere, in code a call in
# the reported block ran (JAX014's `with mesh:`): `jaxfix repair` counts that site as this
# report's by it.
RAISED_IN_CALLED_CODE = "JAX raised it here, in code the block calls"


# The related place of a deprecation's report confirmed by a run's warning raised as an error
# (`-W error`) where the module touches the name, which the report's fix rewrites (its import):
# `jaxfix repair` counts that site as this report's by it.
WARNED_WHERE_THE_FIX_EDITS = "JAX warned here, where the fix rewrites the name's use"


def warned_where_the_fix_edits(evidence: Evidence) -> Related:
    return Related(
        f"{WARNED_WHERE_THE_FIX_EDITS} ({evidence.where})",
        Location(evidence.line, (evidence.columns or (0, 0))[0] + 1),
    )


# The related place of a report on part of a call the run shows raising on another of its lines
# (a keyword of a multi-line `@partial(jax.shard_map, ...)`): `jaxfix repair` counts that site
# as this report's by it.
RAISED_BY_THE_CALL = "JAX raised it here, in the call that holds this"


def raised_by_the_call(evidence: Evidence) -> Related:
    return Related(
        f"{RAISED_BY_THE_CALL} ({evidence.where})",
        Location(evidence.line, (evidence.columns or (0, 0))[0] + 1),
    )


def raised_in_called_code(
    line: int, columns: tuple[int, int] | None, where: str
) -> Related:
    return Related(
        f"{RAISED_IN_CALLED_CODE} ({where})", Location(line, (columns or (0, 0))[0] + 1)
    )


def missing_on_target(
    api: str, since: str, target: tuple[int, ...] | None
) -> str | None:
    """The note of a fix refused because the API it writes, `api`, exists from JAX `since` only
    and the target JAX (the lowest the project's pin allows) is older: the fix would break the
    code there. None when the target has it (None: the newest)."""
    if target is None or target >= parse_version(since):
        return None
    version = ".".join(map(str, target))
    return not_fixed(
        f"{api} exists from JAX {since}, and the target is JAX {version} (raise the "
        "project's jax pin, or give --target-version)"
    )


def what_runs(analysis: Analysis, node: ast.expr, eager: bool) -> str:
    """What a `with` body does that may need devices (`Analysis.devices_needed`'s answer)."""
    if eager:
        return "computes eagerly"
    if isinstance(node, ast.Call):
        return f"calls `{analysis.text(node.func)}`"
    return "yields to the code its caller runs in its own `with`"


def not_fixed(reason: str) -> str:
    """The note a report carries when it has no fix: 'not fixed: <reason>'."""
    return f"not fixed: {reason}"


def short(text: str) -> str:
    """Code quoted in a message: on one line, at most 40 characters."""
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def with_note(message: str, note: str | None) -> str:
    """`message; note`, or `message` alone."""
    return f"{message}; {note}" if note else message


def other_file(path: Path, here: Path) -> str:
    """Another module of the project named from the directory it shares with `here` (the
    reporting file), e.g. `tests/test_run.py`: a bare file name is ambiguous in a project, and
    the name must not depend on where jaxfix runs (results are cached)."""
    there = os.path.abspath(path)
    root = os.path.commonpath(
        [os.path.dirname(there), os.path.dirname(os.path.abspath(here))]
    )
    return Path(os.path.relpath(there, root)).as_posix()


def way_places(way: CallerWay, analysis: Analysis) -> list[str]:
    """Where each call on a caller's `way` is, the outermost first: `line N` in the analysed
    module, `path:N` elsewhere."""
    return [
        f"line {call.lineno}"
        if caller is analysis.module
        else f"{other_file(caller.path, analysis.path)}:{call.lineno}"
        for caller, call, _ in reversed(way.calls)
    ]
