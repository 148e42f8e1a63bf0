"""`--format json`: the whole run as one document, described by jaxfix/schemas/jaxfix-report.schema.json."""

from __future__ import annotations

import json

from jaxfix import __version__
from jaxfix.cli.formats import RunInfo, register
from jaxfix.cli.formats._suggestions import Comment, comments, origin_suggestions
from jaxfix.cli.rule_docs import rule_record
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location
from jaxfix.sources.paths import display_path
from jaxfix.write.diffs import unified_diff_text


def _location(location: Location) -> dict:
    cell = {} if location.cell is None else {"cell": location.cell}
    return {"line": location.line, "column": location.column, **cell}


def _edit(comment: Comment) -> dict:
    """A hunk of the file's fix as ruff's JSON writes an edit: whole original lines replaced."""
    return {
        "content": "".join(comment.replacement or ()),
        "location": {"row": comment.first, "column": 1},
        "end_location": {"row": comment.last + 1, "column": 1},
    }


def _edits(result: FileResult) -> dict[Diagnostic, list[dict]]:
    """Each applied fix's hunks of the file's diff, with the hunks no fix claims (the imports
    they need) given to every fix, as a ruff fix carries its import edit."""
    hunks = [
        c
        for c in comments(result, result.diagnostics, suggest=True)
        if c.replacement is not None
    ]
    shared = [_edit(c) for c in hunks if not c.diagnostics]
    return {
        d: [_edit(c) for c in hunks if d in c.diagnostics] + shared
        for d in result.diagnostics
        if d.applied
    }


def _other_files(diagnostic: Diagnostic) -> list[dict]:
    """The fix's edits of other files (`Diagnostic.data_edits`), whole lines as `_edit`'s,
    each with the file's path; none where the file changed since the fix was made."""
    return [
        {
            "content": "" if o.replacement is None else o.replacement + "\n",
            "location": {"row": o.line, "column": 1},
            "end_location": {"row": o.line + 1, "column": 1},
            "path": display_path(o.path),
        }
        for o in origin_suggestions((diagnostic,), suggest=True)
        if o.replacement is not None
    ]


def _diagnostic(diagnostic: Diagnostic, edits: dict[Diagnostic, list[dict]]) -> dict:
    fix = None
    if diagnostic.fix_title is not None and diagnostic.fix_safety is not None:
        fix = {
            "title": diagnostic.fix_title,
            "safety": diagnostic.fix_safety.value,
            "applied": diagnostic.applied,
            "edits": edits.get(diagnostic, [])
            + (_other_files(diagnostic) if diagnostic.applied else []),
        }
    return {
        "code": diagnostic.code,
        "message": diagnostic.message,
        "start": _location(diagnostic.start),
        "end": _location(diagnostic.end),
        "fix": fix,
        "related": [
            {
                "message": r.message,
                "start": _location(r.start),
                **({"path": display_path(r.path)} if r.path is not None else {}),
            }
            for r in diagnostic.related
        ],
    }


def _file(result: FileResult) -> dict:
    error = None
    if result.error is not None:
        error = {
            "message": result.error,
            **(_location(result.error_location) if result.error_location else {}),
        }
    diff, edits = None, {}
    if result.source is not None and result.fixed is not None and result.error is None:
        diff = unified_diff_text(display_path(result.path), result.source, result.fixed)
        edits = _edits(result)
    return {
        "path": display_path(result.path),
        "status": result.outcome.value,
        "diagnostics": [_diagnostic(d, edits) for d in result.diagnostics],
        "diff": diff,
        "error": error,
    }


def _other_files_changed(results: list[FileResult], listed: list[dict]) -> list[dict]:
    """Each file the fixes change that is not one of the results' own (another module's
    constant, a config's entry: `Diagnostic.data_edits`), with its diff and no diagnostic
    (the fix's is its raising file's); none once written (the file holds the new bytes)."""
    from jaxfix.write.data_edits import data_diffs

    shown = {entry["path"] for entry in listed if entry["diff"] is not None}
    return [
        {
            "path": display_path(diff.path),
            "status": "changed",
            "diagnostics": [],
            "diff": unified_diff_text(display_path(diff.path), diff.old, diff.new),
            "error": None,
        }
        for diff in data_diffs(results)
        if display_path(diff.path) not in shown
    ]


@register("json")
def render(results: list[FileResult], info: RunInfo) -> str:
    """Files with nothing to say (no diagnostic, no change, no error) are only counted."""
    files = [
        _file(r)
        for r in results
        if r.diagnostics or r.fixed is not None or r.error is not None
    ]
    others = [] if info.write else _other_files_changed(results, files)
    document = {
        "tool": {"name": "jaxfix", "version": __version__},
        "rules": [rule_record(r) for r in info.rules],
        "fixes_written": info.write,
        "files": files + others,
        "summary": {
            "files_scanned": len(results),
            "files_changed": len(others)
            + sum(1 for r in results if r.fixed is not None and r.error is None),
            "diagnostics": sum(len(r.diagnostics) for r in results),
            "fixed": sum(
                1
                for r in results
                if r.error is None
                for d in r.diagnostics
                if d.applied
            ),
            "remaining": sum(len(r.remaining) for r in results),
            "files_in_error": sum(1 for r in results if r.error is not None),
        },
    }
    return json.dumps(document, indent=2) + "\n"
