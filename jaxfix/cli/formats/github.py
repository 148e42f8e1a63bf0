"""`--format github`: GitHub Actions workflow commands, shown as annotations on the PR diff."""

from __future__ import annotations

from jaxfix.cli.formats import RunInfo, register
from jaxfix.cli.formats._common import repository_path, reported
from jaxfix.diagnostics import Diagnostic, FileResult, Safety
from jaxfix.notebook import in_document


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(properties: dict[str, object], message: str) -> str:
    fields = ",".join(f"{key}={_property(str(value))}" for key, value in properties.items())
    return f"::error {fields}::{_data(message)}\n"


def _message(diagnostic: Diagnostic) -> str:
    if diagnostic.fix_title is None:
        return diagnostic.message
    if diagnostic.applied:
        return f"{diagnostic.message} (jaxfix can fix this: {diagnostic.fix_title})"
    if diagnostic.fix_safety is Safety.UNSAFE:
        return f"{diagnostic.message} (unsafe fix available with --unsafe-fixes: {diagnostic.fix_title})"
    return diagnostic.message


@register("github")
def render(results: list[FileResult], info: RunInfo) -> str:
    lines = []
    for result in map(in_document, results):  # a notebook's own (JSON) lines
        path = repository_path(result.path)
        if result.error is not None:
            where = result.error_location
            position = {"line": where.line, "col": where.column} if where else {}
            lines.append(_command({"file": path, **position, "title": "jaxfix"}, result.error))
        for d in reported(result, info):
            properties = {"file": path, "line": d.start.line, "col": d.start.column,
                          "endLine": d.end.line, "endColumn": d.end.column, "title": d.code}
            lines.append(_command(properties, _message(d)))
    return "".join(lines)
