"""`--format rdjson`: reviewdog's Diagnostic JSON, with suggestions cut from jaxfix's fix.

`reviewdog -f=rdjson -reporter=github-pr-review` posts each suggestion as a suggested change.
Suggestion ranges are whole lines (no columns) as reviewdog's GitHub reporter wants; the text
keeps the file's own line breaks and leaves out the final one. Columns elsewhere count UTF-8
bytes, as rdjson specifies. Paths are relative to the working directory (reviewdog's own).
"""

from __future__ import annotations

import json

from jaxfix.cli.formats import RunInfo, register
from jaxfix.cli.formats._common import reported
from jaxfix.cli.formats._suggestions import (
    Comment,
    comments,
    companion_message,
    companion_note,
)
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location
from jaxfix.sources.paths import display_path
from jaxfix.sources.text import decode, split_lines


def _position(lines: list[str], location: Location) -> dict:
    text = lines[location.line - 1] if location.line <= len(lines) else ""
    return {
        "line": location.line,
        "column": len(text[: location.column - 1].encode("utf-8")) + 1,
    }


def _entry(
    comment: Comment,
    file_diagnostics: tuple[Diagnostic, ...],
    file_comments: list[Comment],
    path: str,
    lines: list[str],
) -> dict:
    if comment.diagnostics:
        first = comment.diagnostics[0]
        messages = list(dict.fromkeys((d.code, d.message) for d in comment.diagnostics))
        message = (
            first.message
            if len(messages) == 1
            else "\n".join(f"{code}: {text}" for code, text in messages)
        )
        note = companion_note(comment, file_comments)
        entry = {
            "message": f"{message}\n{note}" if note else message,
            "location": {
                "path": path,
                "range": {
                    "start": _position(lines, first.start),
                    "end": _position(lines, first.end),
                },
            },
            "severity": "ERROR",
            "code": {"value": first.code},
        }
        if first.related:
            entry["related_locations"] = [
                {
                    "message": r.message,
                    "location": {
                        "path": path,
                        "range": {"start": _position(lines, r.start)},
                    }
                    if r.path is None
                    else {  # another file, whose text this run does not hold: the line
                        "path": display_path(r.path),
                        "range": {"start": {"line": r.start.line}},
                    },
                }
                for r in first.related
            ]
    else:
        entry = {
            "message": companion_message(comment, file_diagnostics),
            "location": {
                "path": path,
                "range": {
                    "start": {"line": comment.first},
                    "end": {"line": comment.last},
                },
            },
            "severity": "ERROR",
        }
    if comment.replacement is not None:
        entry["suggestions"] = [
            {
                "range": {
                    "start": {"line": comment.first},
                    "end": {"line": comment.last},
                },
                "text": comment.text,
            }
        ]
    return entry


@register("rdjson", stored=True)
def render(results: list[FileResult], info: RunInfo) -> str:
    entries = []
    for result in results:
        diagnostics = reported(result, info)
        if not diagnostics:
            continue
        path = display_path(result.path)
        lines = split_lines(decode(result.source)) if result.source is not None else []
        file_comments = comments(result, diagnostics, suggest=not info.write)
        entries.extend(
            _entry(c, diagnostics, file_comments, path, lines) for c in file_comments
        )
    document = {
        "source": {"name": "jaxfix"},
        "severity": "ERROR",
        "diagnostics": entries,
    }
    return json.dumps(document, indent=2) + "\n"
