"""`--format gitlab`: a GitLab Code Quality report (a JSON array of CodeClimate issues)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from jaxfix.cli.formats import RunInfo, register
from jaxfix.cli.formats._common import reported, repository_path
from jaxfix.ground.diagnostics import Diagnostic, FileResult
from jaxfix.sources.text import decode, split_lines


def _fingerprint(
    path: str, diagnostic: Diagnostic, line_text: str, seen: Counter
) -> str:
    """Stable while the flagged line's text stays the same, even when lines above move;
    identical findings in one file are told apart by their order."""
    key = (path, diagnostic.code, diagnostic.message, line_text.strip())
    seen[key] += 1
    return hashlib.sha256(
        "\0".join((*key, str(seen[key]))).encode("utf-8", "surrogateescape")
    ).hexdigest()


@register("gitlab", stored=True, fixed_code=False)
def render(results: list[FileResult], info: RunInfo) -> str:
    issues = []
    for result in results:
        diagnostics = reported(result, info)
        if not diagnostics:
            continue
        path = repository_path(result.path)
        lines = split_lines(decode(result.source)) if result.source is not None else []
        seen: Counter = Counter()
        for d in diagnostics:
            line_text = lines[d.start.line - 1] if d.start.line <= len(lines) else ""
            issues.append(
                {
                    "type": "issue",
                    "check_name": d.code,
                    "description": f"{d.code}: {d.message}"
                    + "".join(  # a related place in another file: its path and line
                        f"\n{repository_path(r.path)}:{r.start.line}: {r.message}"
                        for r in d.related
                        if r.path is not None
                    ),
                    "categories": ["Bug Risk"],
                    "severity": "major",
                    "fingerprint": _fingerprint(path, d, line_text, seen),
                    "location": {
                        "path": path,
                        "lines": {"begin": d.start.line, "end": d.end.line},
                    },
                }
            )
    return json.dumps(issues, indent=2) + "\n"
