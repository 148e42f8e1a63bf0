"""Human output through rich: diffs with their diagnostics, diagnostics, the summary, rule docs.

Every path and message goes through `printable` (jaxfix/ground/escaping.py) on its way out: a file name
or a log may hold newlines and terminal escapes, and rich passes ESC through."""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from jaxfix.cli.diff_view import hunks, owner
from jaxfix.cli.rule_docs import explain_markdown
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location, Safety
from jaxfix.ground.escaping import printable
from jaxfix.sources.kinds import source_of
from jaxfix.sources.paths import display_path
from jaxfix.write.diffs import header_names

if TYPE_CHECKING:  # importing the rules means importing libcst: only when they are used
    from collections.abc import Sequence

    from jaxfix.codemods.base import Rule
    from jaxfix.write.data_edits import DataDiff

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n?", re.MULTILINE | re.DOTALL)


def _fix_note(diagnostic: Diagnostic, dry_run: bool) -> str:
    if diagnostic.fix_title is None or diagnostic.fix_safety is None:
        return " [no fix]"
    safety = diagnostic.fix_safety.value
    if diagnostic.applied:
        return f" [{'would fix' if dry_run else 'fixed'} ({safety}): {diagnostic.fix_title}]"
    if diagnostic.withheld:  # allowed, and refused: the message says why
        return f" [fix not written ({safety}): {diagnostic.fix_title}]"
    if diagnostic.fix_safety is Safety.UNSAFE:
        return f" [unsafe fix, available with --unsafe-fixes: {diagnostic.fix_title}]"
    return f" [not applied: {diagnostic.fix_title}]"


def shown_path(path: Path | str) -> str:
    """A path as human output prints it: display_path, escaped."""
    return printable(display_path(Path(path)))


def _diagnostic_line(path: Path, d: Diagnostic, dry_run: bool) -> Text:
    text = Text()
    text.append(f"{shown_path(path)}:{d.start}: ", style="bold")
    text.append(d.code, style="bold red")
    text.append(f" {printable(d.message)}")
    text.append(printable(_fix_note(d, dry_run)), style="dim")
    return text


def _diagnostic_lines(path: Path, d: Diagnostic, dry_run: bool) -> list[Text]:
    """A diagnostic's line, and one for each place it relates to."""
    return [_diagnostic_line(path, d, dry_run)] + [
        Text(
            f"    {shown_path(related.path or path)}:{related.start}: {printable(related.message)}",
            style="dim",
        )
        for related in d.related
    ]


def _print_lines(console: Console, lines: list[Text]) -> None:
    """`lines`, each as its own `console.print` would print it, in one: rich's cost per call
    (the console's checks, its buffer) is most of a preview's when every line is a call."""
    if lines:
        console.print(Text("\n").join(lines), soft_wrap=True)


def _print_diagnostic(
    console: Console, path: Path, d: Diagnostic, dry_run: bool
) -> None:
    _print_lines(console, _diagnostic_lines(path, d, dry_run))


def render_diff(console: Console, result: FileResult, *, dry_run: bool = True) -> None:
    """The file's diff, each applied diagnostic printed above the hunk that holds its fix; for a
    notebook, one diff per changed cell (`path:cell N`), as `--diff` prints it. `dry_run`:
    the fixes are shown, not written ("would fix"); repair's rounds print written ones as
    "fixed"."""
    assert result.source is not None and result.fixed is not None
    name = display_path(result.path)
    applied = [d for d in result.diagnostics if d.applied]
    parts = [
        (
            name + part.label,
            part.old,
            part.new,
            [d for d in applied if part.cell in (None, d.fix_cell or d.start.cell)],
        )
        for part in source_of(result.path, result.source).parts(result.fixed)
    ]
    placed = [d for *_, ds in parts for d in ds]
    for d in applied:  # a notebook's fix whose place is in no changed cell
        if d not in placed:
            _print_diagnostic(console, result.path, d, dry_run=dry_run)
    for label, old, new, diagnostics in parts:
        _render_diff_part(
            console, result.path, label, old, new, diagnostics, dry_run=dry_run
        )


def render_data_diff(
    console: Console,
    diff: DataDiff,
    results: Sequence[FileResult],
    *,
    dry_run: bool = True,
) -> None:
    """A data file's diff (a JSON or YAML entry a fix changes), with the fixes that change it
    above it when their own file's diff does not show them (a fix with no Python edit)."""
    shown = [
        d
        for r in results
        if r.fixed is None
        for d in r.diagnostics
        if d.applied and any(e.path == diff.path for e in d.data_edits)
    ]
    for d in shown:
        path = next(r.path for r in results if d in r.diagnostics)
        _print_diagnostic(console, path, d, dry_run=dry_run)
    _render_diff_part(
        console,
        diff.path,
        display_path(diff.path),
        diff.old,
        diff.new,
        [],
        dry_run=dry_run,
    )


def _render_diff_part(
    console: Console,
    path: Path,
    label: str,
    old: bytes,
    new: bytes,
    diagnostics: list[Diagnostic],
    *,
    dry_run: bool,
) -> None:
    old_name, new_name = (
        name.decode("ascii").rstrip("\t") for name in header_names(label)
    )  # as --diff quotes them
    lines = [Text(f"--- {old_name}\n+++ {new_name}", style="bold")]
    shown = hunks(old, new)
    above: dict[int | None, list[Diagnostic]] = {}
    for d in diagnostics:
        above.setdefault(owner(shown, d), []).append(d)
    for d in above.get(None, []):  # no hunk of its own (its edit merged into another's)
        lines += _diagnostic_lines(path, d, dry_run)
    for index, hunk in enumerate(shown):
        for d in above.get(index, []):
            lines += _diagnostic_lines(path, d, dry_run)
        lines.append(Text(hunk.header, style="cyan"))
        lines += hunk.lines
    _print_lines(console, lines)


def render_diagnostics(
    console: Console, result: FileResult, *, only_remaining: bool, dry_run: bool
) -> None:
    for d in result.remaining if only_remaining else result.diagnostics:
        _print_diagnostic(console, result.path, d, dry_run)


def render_trails(console: Console, result: FileResult) -> None:
    """`-v`: each call a rule looked at and left, with the step where a value's trail ended
    (stderr, as the other verbose lines)."""
    for d in result.trails:
        console.print(
            Text(
                f"{shown_path(result.path)}:{d.start}: {d.code} not reported: {printable(d.message)}",
                style="dim",
            ),
            soft_wrap=True,
        )


def render_left_out(console: Console, results: list[FileResult]) -> None:
    """`--diff` prints only fixes: say on stderr which findings are not in it, and why."""
    left = [(r.path, d) for r in results for d in r.remaining]
    for path, d in left:
        console.print(_diagnostic_line(path, d, dry_run=True), soft_wrap=True)
    if left:
        withheld = sum(1 for _, d in left if d.withheld)
        unsafe = sum(
            1 for _, d in left if d.fix_safety is Safety.UNSAFE and not d.withheld
        )
        reasons = (
            [
                f"{unsafe} unsafe fix{'es' if unsafe != 1 else ''} not enabled (--unsafe-fixes)"
            ]
            if unsafe
            else []
        )
        if withheld:
            reasons.append(f"{withheld} fix{'es' if withheld != 1 else ''} not written")
        if len(left) - unsafe - withheld:
            reasons.append(f"{len(left) - unsafe - withheld} without a fix")
        console.print(
            Text(
                f"not in the diff: {len(left)} finding{'s' if len(left) != 1 else ''} ({', '.join(reasons)})",
                style="yellow",
            ),
            soft_wrap=True,
        )


def render_error(
    console: Console, path: Path | str, message: str, location: Location | None = None
) -> None:
    where = shown_path(path) + (f":{location}" if location is not None else "")
    console.print(
        Text(f"{where}: error: {printable(message)}", style="red"), soft_wrap=True
    )


def render_summary(
    console: Console,
    results: list[FileResult],
    *,
    write: bool,
    other_errors: int = 0,
    log_rows: tuple[tuple[str, int], ...] = (),
    target: str | None = None,
) -> None:
    """`other_errors`: paths that failed before reaching the engine (e.g. no such file);
    `log_rows`: with --from-log, what became of the log's tracebacks that are not files' results;
    `target`: the JAX version checked against and where it came from, said under the table."""
    fixes = Counter(
        d.code
        for r in results
        if r.error is None
        for d in r.diagnostics
        if d.applied and (r.changes or d.data_edits)
    )
    left = sum(len(r.remaining) for r in results)
    data_files = {  # a JSON config's entry a fix changes (write/data_edits.py)
        e.path
        for r in results
        if r.error is None
        for d in r.diagnostics
        if d.applied
        for e in d.data_edits
    }
    changed = len(data_files) + sum(1 for r in results if r.changes and r.error is None)
    # rich.table here and in render_rules only: `jaxfix repair`'s rounds print none
    from rich.table import Table

    table = Table(title="jaxfix summary", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("files scanned", str(len(results)))
    table.add_row("files changed" if write else "files that would change", str(changed))
    for code, count in sorted(fixes.items()):
        table.add_row(
            f"fixes {code}" if write else f"fixes {code} (pending)", str(count)
        )
    table.add_row("diagnostics left", str(left))
    table.add_row(
        "files in error", str(sum(1 for r in results if r.error) + other_errors)
    )
    for what, count in log_rows:
        table.add_row(what, str(count))
    console.print(table)
    if target:
        console.print(
            Text(f"target JAX {printable(target)}", style="dim"), soft_wrap=True
        )


def render_rules(console: Console, rules: dict[str, type[Rule]]) -> None:
    """A table on a terminal; piped, one tab-separated line per rule (for grep and cut)."""
    if not console.is_terminal:
        for code, rule in sorted(rules.items()):
            console.file.write(
                f"{code}\t{rule.name}\t{rule.fix_safety()}\t{rule.summary}\t{rule.fix_safety_text()}\n"
            )
        return
    from rich.table import Table

    table = Table(title="jaxfix rules")
    for column in (
        "code",
        "name",
    ):  # whole on any width: what --select and --explain take
        table.add_column(column, no_wrap=True)
    table.add_column("fix safety")  # what the fixes do is on --explain's page
    table.add_column("summary", overflow="fold")
    for code, rule in sorted(rules.items()):
        table.add_row(code, rule.name, rule.fix_safety(), rule.summary)
    console.print(table)


def _repository_links(text: str) -> str:
    """The page's links to other docs (`../engine.md`, relative to docs/rules/) as paths in the
    repository (`docs/engine.md`): a terminal cannot open a link relative to a page it never saw."""

    def resolve(link: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join("docs/rules", link[2]))
        return link[1] if link[1] == target else f"[{link[1]}]({target})"

    return re.sub(r"\[([^\]]*)\]\((?![a-z]+:|#)([^)\s]+)\)", resolve, text)


def render_explain(console: Console, rule: type[Rule]) -> None:
    """Markdown as it is when piped (it is the docs/rules page); rendered on a terminal, with
    code blocks printed whole, never wrapped, and links written out, not hidden in terminal
    hyperlinks (a relative one would point nowhere)."""
    text = explain_markdown(rule)
    if not console.is_terminal:
        console.file.write(text)
        return
    text = _repository_links(text)
    from rich.markdown import Markdown
    from rich.syntax import Syntax

    position = 0
    for fence in _FENCE.finditer(text):
        console.print(Markdown(text[position : fence.start()], hyperlinks=False))
        code = fence[2].rstrip("\n")
        for line in Syntax(code, fence[1] or "text").highlight(code).split("\n"):
            console.print(Text("    ") + line, soft_wrap=True)
        console.print()
        position = fence.end()
    console.print(Markdown(text[position:], hyperlinks=False))
