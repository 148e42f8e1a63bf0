"""Human output through rich, on stderr: diffs, diagnostics, the summary table."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from jaxfix.diagnostics import Diagnostic, FileResult, Safety
from jaxfix.diffs import unified_diff
from jaxfix.paths import display_path

if TYPE_CHECKING:  # importing the rules means importing libcst: only when they are used
    from jaxfix.codemods.base import Rule

_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def render_diff(console: Console, result: FileResult) -> None:
    assert result.source is not None and result.fixed is not None
    for line in unified_diff(display_path(result.path), result.source, result.fixed).splitlines():
        style = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), None)
        console.print(Text(line, style=style or ""), soft_wrap=True)


def _fix_note(diagnostic: Diagnostic, dry_run: bool) -> str:
    if diagnostic.fix_title is None:
        return ""
    if diagnostic.applied:
        return f" [{'would fix' if dry_run else 'fixed'}: {diagnostic.fix_title}]"
    if diagnostic.fix_safety is Safety.UNSAFE:
        return f" [unsafe fix available with --unsafe-fixes: {diagnostic.fix_title}]"
    return ""


def render_diagnostics(console: Console, result: FileResult, *, only_remaining: bool, dry_run: bool) -> None:
    shown = result.remaining if only_remaining else result.diagnostics
    for d in shown:
        text = Text()
        text.append(f"{display_path(result.path)}:{d.start.line}:{d.start.column}: ", style="bold")
        text.append(d.code, style="bold red")
        text.append(f" {d.message}")
        text.append(_fix_note(d, dry_run), style="dim")
        console.print(text, soft_wrap=True)
        for related in d.related:
            console.print(Text(f"    {display_path(result.path)}:{related.start.line}:{related.start.column}: {related.message}", style="dim"), soft_wrap=True)


def render_error(console: Console, path: Path | str, message: str, line: int | None = None, column: int | None = None) -> None:
    where = f"{display_path(Path(path))}" + (f":{line}:{column}" if line is not None else "")
    console.print(Text(f"{where}: error: {message}", style="red"), soft_wrap=True)


def render_summary(console: Console, results: list[FileResult], *, write: bool, dry_run: bool) -> None:
    fixes = Counter(d.code for r in results for d in r.diagnostics if d.applied and r.fixed is not None)
    left = sum(len(r.remaining) for r in results)
    changed = sum(1 for r in results if r.fixed is not None)
    table = Table(title="jaxfix summary", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("files scanned", str(len(results)))
    table.add_row("files changed" if write else "files that would change", str(changed))
    for code, count in sorted(fixes.items()):
        table.add_row(f"fixes {code}" if write or not dry_run else f"fixes {code} (pending)", str(count))
    table.add_row("diagnostics left", str(left))
    table.add_row("files in error", str(sum(1 for r in results if r.error)))
    console.print(table)


def render_rules(console: Console, rules: dict[str, type[Rule]]) -> None:
    table = Table(title="jaxfix rules")
    for column in ("code", "name", "fix safety", "summary"):
        table.add_column(column)
    for code, rule in sorted(rules.items()):
        table.add_row(code, rule.name, rule.fix_safety.value, rule.summary)
    console.print(table)


def render_explain(console: Console, rule: type[Rule]) -> None:
    from rich.markdown import Markdown

    console.print(Markdown(f"# {rule.code} ({rule.name})\n\n{rule.summary}\n\n{rule.doc()}"))
