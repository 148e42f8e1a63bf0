"""What ruff users reach for besides checking: `--show-settings`, `--show-files`,
`--statistics`, `--add-noqa` and `--output-file` (each printed on stdout, as ruff prints them)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from jaxfix.ground.diagnostics import FileResult
from jaxfix.ground.escaping import printable
from jaxfix.settings.config import Config
from jaxfix.settings.options import Options
from jaxfix.settings.table import SETTINGS
from jaxfix.settings.target_version import TargetVersion
from jaxfix.sources.kinds import source_of
from jaxfix.sources.paths import display_path


def settings_text(
    config: Config,
    options: Options,
    roots: tuple[Path, ...],
    flags: dict[str, Any],
    target: TargetVersion,
    cache: Path | None,
) -> str:
    """Every setting in effect and where the less obvious ones come from, as `--show-settings`."""
    from jaxfix.check.engine import selected_rules

    rules = selected_rules(options)
    effective: dict[str, Any] = {
        "target-version": target.text,
        "strict": bool(flags.get("strict") or config.values.get("strict")),
        "src": config.values.get("src", ["."]),
        "cache-dir": str(cache) if cache is not None else None,
        "output-file": flags.get("output_file"),
    }
    lines = [
        f"config file: {config.path if config.path else 'none (defaults)'}",
        f"project roots: {', '.join(map(str, roots)) or 'none'}",
        f"target JAX version: {target.describe()}",
        f"line length: {options.line_length}",
        f"rules: {', '.join(f'{rule.code} ({rule.name})' for rule in rules) or 'none'}",
        "",
        "[tool.jaxfix] settings in effect:",
    ]
    for setting in SETTINGS:
        value = (
            getattr(options, setting.name)
            if setting.in_options
            else options.rule_settings.get(setting.rule, {}).get(setting.key)
            if setting.rule
            else effective.get(setting.key)
        )
        value = list(value) if isinstance(value, tuple) else value
        lines.append(f"{setting.key} = {json.dumps(value)}")
    return "".join(
        printable(line) + "\n" for line in lines
    )  # a path from a stranger's tree may hold anything


def files_text(files: list[Path]) -> str:
    """One file a line, sorted, as `--show-files`."""
    return "".join(printable(display_path(path)) + "\n" for path in sorted(files))


def statistics(results: list[FileResult], *, write: bool, output_format: str) -> str:
    """Counts per rule code, as ruff's `--statistics`: `count<TAB>code<TAB>[*] name`, `[*]` when
    every one of them is fixed (or would be) with the current settings."""
    from jaxfix.codemods import RULES

    shown = [d for r in results for d in (r.remaining if write else r.diagnostics)]
    counts = Counter(d.code for d in shown)
    fixable = {code: all(d.applied for d in shown if d.code == code) for code in counts}
    rows = [
        (code, count, RULES[code].name if code in RULES else "", fixable[code])
        for code, count in sorted(counts.items())
    ]
    if output_format == "json":
        return (
            json.dumps(
                [
                    {"code": c, "name": n, "count": k, "fixable": f}
                    for c, k, n, f in rows
                ],
                indent=2,
            )
            + "\n"
        )
    width = max((len(str(count)) for _, count, _, _ in rows), default=1)
    return "".join(
        f"{count:>{width}}\t{code}\t{'[*]' if fix else '[ ]'} {name}\n"
        for code, count, name, fix in rows
    )


def add_noqa(results: list[FileResult]) -> tuple[int, int, list[str]]:
    """Write the comments: (comments added, files changed, one line per finding left unsuppressed)."""
    from jaxfix.write.add_noqa import with_suppressions
    from jaxfix.write.safe_write import WriteError, replace_source

    added = files = 0
    problems = []
    for result in results:
        if result.error or not result.diagnostics or result.source is None:
            continue
        name = printable(display_path(result.path))
        if not source_of(result.path, result.source).takes_comments:
            problems += [
                f"{name}:{d.start}: {d.code} not suppressed: --add-noqa does not edit notebooks"
                for d in result.diagnostics
            ]
            continue
        new, count, left = with_suppressions(result.source, result.diagnostics)
        problems += [
            f"{name}:{d.start}: {d.code} not suppressed: no line of it can carry a comment"
            for d in left
        ]
        if count:
            try:
                replace_source(result.path, new, expected=result.source)
            except (WriteError, OSError) as error:
                problems.append(f"{name}: error: {error}")
                continue
            added, files = added + count, files + 1
    return added, files, problems
