"""`--format sarif`: SARIF 2.1.0 for code-scanning dashboards, with rule metadata and fixes.

Paths are relative to the git work tree (`%SRCROOT%`), as GitHub code scanning expects, and
percent-encoded as URI references must be.
A result's fix carries the hunks of jaxfix's fix that belong to it plus the file's companion
hunks (added imports), so each fix applies on its own.
"""

from __future__ import annotations

import json
from pathlib import Path

from jaxfix import __version__
from jaxfix.cli.formats import RunInfo, register
from jaxfix.cli.formats._common import (
    doc_section,
    reported,
    repository_path,
    source_root,
)
from jaxfix.cli.formats._suggestions import Comment, comments
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location
from jaxfix.ground.escaping import uri_path

_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _rule(rule: type[Rule]) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": doc_section(rule, "What it does") or rule.summary},
        "help": {"text": rule.doc(), "markdown": rule.doc()},
        "defaultConfiguration": {"level": "error"},
        "properties": {"fixSafety": rule.fix_safety(), "fixes": rule.fix_safety_text()},
    }


def _artifact(path: Path) -> dict:
    return {"uri": uri_path(repository_path(path)), "uriBaseId": "%SRCROOT%"}


def _region(start: Location, end: Location | None = None) -> dict | None:
    """None for a place that is not on a line (SARIF lines start at 1): the file itself."""
    if start.line < 1:
        return None
    region = {"startLine": start.line, "startColumn": start.column}
    if end is not None:
        region.update(endLine=end.line, endColumn=end.column)
    return region


def _physical(path: Path, region: dict | None) -> dict:
    return {
        "artifactLocation": _artifact(path),
        **({"region": region} if region else {}),
    }


def _fix(diagnostic: Diagnostic, path: Path, file_comments: list[Comment]) -> dict:
    hunks = [
        c
        for c in file_comments
        if c.replacement is not None
        and (diagnostic in c.diagnostics or not c.diagnostics)
    ]
    return {
        "description": {"text": diagnostic.fix_title},
        "artifactChanges": [
            {
                "artifactLocation": _artifact(path),
                # Whole lines: no columns means from the start of startLine to the end of endLine.
                "replacements": [
                    {
                        "deletedRegion": {"startLine": c.first, "endLine": c.last},
                        "insertedContent": {"text": c.text},
                    }
                    for c in hunks
                ],
            }
        ],
    }


def _results(
    result: FileResult, info: RunInfo, rule_index: dict[str, int]
) -> list[dict]:
    diagnostics = reported(result, info)
    file_comments = comments(result, diagnostics, suggest=not info.write)
    out = []
    for d in diagnostics:
        entry = {
            "ruleId": d.code,
            "level": "error",
            "message": {"text": d.message},
            "locations": [
                {"physicalLocation": _physical(result.path, _region(d.start, d.end))}
            ],
        }
        if d.code in rule_index:
            entry["ruleIndex"] = rule_index[d.code]
        if d.related:
            entry["relatedLocations"] = [
                {
                    "id": n,
                    "message": {"text": r.message},
                    "physicalLocation": _physical(
                        r.path or result.path, _region(r.start)
                    ),
                }
                for n, r in enumerate(d.related)
            ]
        if any(d in c.diagnostics for c in file_comments if c.replacement is not None):
            entry["fixes"] = [_fix(d, result.path, file_comments)]
        out.append(entry)
    return out


def _notification(result: FileResult) -> dict:
    location = _physical(
        result.path,
        _region(result.error_location) if result.error_location is not None else None,
    )
    return {
        "level": "error",
        "message": {"text": result.error},
        "locations": [{"physicalLocation": location}],
    }


@register("sarif", stored=True)
def render(results: list[FileResult], info: RunInfo) -> str:
    rule_index = {rule.code: n for n, rule in enumerate(info.rules)}
    run = {
        "tool": {
            "driver": {
                "name": "jaxfix",
                "version": __version__,
                "rules": [_rule(r) for r in info.rules],
            }
        },
        "originalUriBaseIds": {
            "%SRCROOT%": {"uri": source_root().as_uri().rstrip("/") + "/"}
        },
        "columnKind": "unicodeCodePoints",
        "results": [entry for r in results for entry in _results(r, info, rule_index)],
        "invocations": [
            {
                "executionSuccessful": not any(r.error for r in results),
                "toolExecutionNotifications": [
                    _notification(r) for r in results if r.error is not None
                ],
            }
        ],
    }
    return (
        json.dumps({"$schema": _SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2)
        + "\n"
    )
