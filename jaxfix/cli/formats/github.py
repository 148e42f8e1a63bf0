"""`--format github`: GitHub Actions workflow commands, shown as annotations on the PR diff."""

from __future__ import annotations

from jaxfix.cli.formats import RunInfo, register
from jaxfix.cli.formats._common import reported, repository_path
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location, Safety
from jaxfix.ground.escaping import workflow_data, workflow_property


def _command(properties: dict[str, object], message: str) -> str:
    fields = ",".join(
        f"{key}={workflow_property(str(value))}" for key, value in properties.items()
    )
    return f"::error {fields}::{workflow_data(message)}\n"


def _span(start: Location | None, end: Location | None = None) -> dict[str, int]:
    """The annotation's position; none for a place not on a line (the file itself)."""
    if start is None or start.line < 1:
        return {}
    span = {"line": start.line, "col": start.column}
    return span | (
        {"endLine": end.line, "endColumn": end.column}
        if end is not None and end.line >= 1
        else {}
    )


def _message(diagnostic: Diagnostic) -> str:
    """The message, what jaxfix can do about it, and each related place in another file on a
    line of its own (an annotation has one place: the others are named in its text)."""
    message = diagnostic.message
    if diagnostic.fix_title is None:
        pass
    elif diagnostic.applied:
        message = f"{message} (jaxfix can fix this: {diagnostic.fix_title})"
    elif diagnostic.fix_safety is Safety.UNSAFE and not diagnostic.withheld:
        message = f"{message} (unsafe fix available with --unsafe-fixes: {diagnostic.fix_title})"
    return message + "".join(
        f"\n{repository_path(r.path)}:{r.start.line}: {r.message}"
        for r in diagnostic.related
        if r.path is not None
    )


@register("github", stored=True, fixed_code=False)
def render(results: list[FileResult], info: RunInfo) -> str:
    lines = []
    for result in results:
        path = repository_path(result.path)
        if result.error is not None:
            lines.append(
                _command(
                    {"file": path, **_span(result.error_location), "title": "jaxfix"},
                    result.error,
                )
            )
        for d in reported(result, info):
            properties = {"file": path, **_span(d.start, d.end), "title": d.code}
            lines.append(_command(properties, _message(d)))
    return "".join(lines)
