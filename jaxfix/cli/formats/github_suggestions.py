"""`--format github-suggestions`: pull-request review comments for GitHub's REST API.

Each item is what a bot POSTs to /repos/{owner}/{repo}/pulls/{number}/comments (plus the
commit_id it reviews) or puts in a review's `comments`: `path`, `line` (and `start_line` for a
multi-line range), `side` and a Markdown `body` with the rule message and, where jaxfix fixes
the code, a ```suggestion block with the exact replacement lines. Comments never overlap, so
committing all suggestions gives exactly jaxfix's fixed file. A fix that changes a data file (a
JSON config's entry a recorded run read a mesh's sizes from) adds a comment at that file's line,
marked `"origin": true`, with the line as the fix leaves it.
"""

from __future__ import annotations

import json
import re

from jaxfix.cli.formats import RunInfo, register
from jaxfix.cli.formats._common import reported, repository_path
from jaxfix.cli.formats._suggestions import (
    Comment,
    OriginSuggestion,
    comments,
    companion_message,
    companion_note,
    origin_suggestions,
)
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Safety
from jaxfix.ground.escaping import markdown_message

_BACKTICKS = re.compile(r"`{3,}")


def _note(diagnostic: Diagnostic) -> str:
    if (
        diagnostic.fix_title is not None
        and not diagnostic.applied
        and not diagnostic.withheld
        and diagnostic.fix_safety is Safety.UNSAFE
    ):
        return f" (unsafe fix available with `--unsafe-fixes`: {diagnostic.fix_title})"
    return ""


def _body(
    comment: Comment,
    file_diagnostics: tuple[Diagnostic, ...],
    file_comments: list[Comment],
) -> str:
    if comment.diagnostics:
        text = "\n\n".join(
            dict.fromkeys(
                f"**{d.code}**: {markdown_message(d.message + _note(d))}"
                for d in comment.diagnostics
            )
        )
    else:
        text = markdown_message(companion_message(comment, file_diagnostics))
    if comment.replacement is None:
        return text
    note = companion_note(comment, file_comments)
    lines = comment.lines
    fence = "`" * max(
        [3, *(len(run) + 1 for line in lines for run in _BACKTICKS.findall(line))]
    )
    return "\n".join(
        [text, *(["", note] if note else []), "", f"{fence}suggestion", *lines, fence]
    )


def _item(
    comment: Comment,
    file_diagnostics: tuple[Diagnostic, ...],
    file_comments: list[Comment],
    path: str,
) -> dict:
    item: dict = {"path": path, "line": comment.last, "side": "RIGHT"}
    if comment.first < comment.last:
        item.update(start_line=comment.first, start_side="RIGHT")
    item["body"] = _body(comment, file_diagnostics, file_comments)
    return item


def _origin_item(origin: OriginSuggestion, raised: str) -> dict:
    """A comment at the line of a data file that holds the value an error is about (its
    `origin`: a bot posts it only where that line is in the diff, the raising line's comment
    names it anyway)."""
    d = origin.diagnostic
    text = (
        f"**{d.code}**: {markdown_message(origin.message + _note(d))} "
        f"(the error is raised at {markdown_message(f'{raised}:{d.start.line}')})"
    )
    if origin.replacement is not None:
        fence = "`" * max(
            [3, *(len(run) + 1 for run in _BACKTICKS.findall(origin.replacement))]
        )
        text = "\n".join([text, "", f"{fence}suggestion", origin.replacement, fence])
    return {
        "path": repository_path(origin.path),
        "line": origin.line,
        "side": "RIGHT",
        "origin": True,
        "body": text,
    }


@register("github-suggestions", stored=True)
def render(results: list[FileResult], info: RunInfo) -> str:
    items = []
    for result in results:
        diagnostics = reported(result, info)
        path = repository_path(result.path)
        file_comments = comments(result, diagnostics, suggest=not info.write)
        items.extend(_item(c, diagnostics, file_comments, path) for c in file_comments)
        items.extend(
            _origin_item(o, path)
            for o in origin_suggestions(diagnostics, suggest=not info.write)
        )
    return json.dumps(items, indent=2) + "\n"
