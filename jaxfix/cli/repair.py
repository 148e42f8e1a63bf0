"""`jaxfix repair [OPTIONS] [PATH]... -- COMMAND [ARG]...`: run COMMAND, fix what its run raised,
run it again, until it passes.

Exit codes: 0 COMMAND passes at the end; 1 it still fails (or, with --dry-run, failed);
2 usage error, COMMAND could not be started, or an internal error.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections import Counter
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from jaxfix.check.registry import codes_range
from jaxfix.cli.consoles import make_console
from jaxfix.cli.flags import (
    RULES_MARK,
    RulesHelpCommand,
    build_run_from,
    setting_flags,
    setting_values,
)
from jaxfix.ground.escaping import printable
from jaxfix.settings.table import MIGRATE
from jaxfix.sources.paths import display_path
from jaxfix.workflows.repair import (
    RepairReport,
    RepairSettings,
    Round,
    SiteOutcome,
    Stop,
    repair,
)

if TYPE_CHECKING:  # rich: imported once the command runs (jaxfix/cli/consoles.py)
    from rich.console import Console

    from jaxfix.evidence.records import Failure

EXIT_PASSED, EXIT_FAILING, EXIT_ERROR = 0, 1, 2
REPORT_SCHEMA = "jaxfix-repair/1"


class _RepairCommand(RulesHelpCommand):
    """Everything after the first `--` is COMMAND, never jaxfix's own options or paths."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" not in args:
            if any(a in ("-h", "--help") for a in args):
                return super().parse_args(ctx, args)
            raise click.UsageError(
                "give the command to run after '--': jaxfix repair [PATH]... -- COMMAND [ARG]...",
                ctx,
            )
        split = args.index("--")
        ctx.meta["jaxfix_repair_command"] = tuple(args[split + 1 :])
        return super().parse_args(ctx, args[:split])

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [*super().collect_usage_pieces(ctx), "-- COMMAND [ARG]..."]


_HELP = f"""Run COMMAND, fix the {RULES_MARK} errors its run raised, run it again.

    COMMAND runs in the current directory with jaxfix's recorder injected (nothing is installed
    where it runs; its interpreter may have another JAX and no jaxfix). The sites it shows
    raising under PATH (default: .) get the rules' own fixes, as `--evidence` gives them; the
    loop ends when COMMAND passes, when a round brings nothing new to fix, or after
    --max-rounds. See docs/repair.md.
    """


@click.command(
    cls=_RepairCommand,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=_HELP,
)
@click.argument("paths", metavar="[PATH]...", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--max-rounds",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Stop after this many rounds of fixes.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="End COMMAND (its whole process group) when one run takes longer.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Run COMMAND once and show the fixes; write nothing.",
)
@setting_flags(MIGRATE)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: the final report alone on stdout.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No diffs; only the rounds' lines and the summary.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for the fixes (default: CPU count).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Use this pyproject.toml instead of searching.",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
)
@click.pass_context
def repair_command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    max_rounds: int,
    timeout: float | None,
    dry_run: bool,
    output_format: str,
    quiet: bool,
    jobs: int | None,
    config_file: Path | None,
    color: str,
    **params: Any,
) -> None:
    """`jaxfix repair` (its help: `_HELP`, naming the registered rules)."""
    command = ctx.meta.get("jaxfix_repair_command", ())
    if not command:
        raise click.UsageError("the command after '--' is empty")
    path_list = list(paths) or [Path(".")]
    run = build_run_from(path_list, setting_values(params), config_file=config_file)
    from jaxfix.check.runner import default_jobs

    settings = RepairSettings(
        max_rounds=max_rounds,
        timeout=timeout,
        dry_run=dry_run,
        jobs=min(jobs or default_jobs(), default_jobs()),
    )
    out = _Output(color, output_format, quiet=quiet, dry_run=dry_run)
    try:
        report = repair(
            path_list,
            command,
            run,
            settings,
            on_round=out.waiting.append,
            on_run_started=lambda number: out.started(number, command),
        )
    except Exception as error:  # noqa: BLE001 - one line, exit 2; files are either as they were or fixed
        from rich.text import Text

        with suppress(
            Exception
        ):  # the rounds done before the error, as far as they print
            out.rounds_done()
        out.console.print(
            Text(
                printable(
                    f"jaxfix repair: internal error: {type(error).__name__}: {error}"
                ),
                style="red",
            ),
            soft_wrap=True,
        )
        sys.exit(EXIT_ERROR)
    out.rounds_done()
    if output_format == "json":
        sys.stdout.write(json.dumps(report_json(report), indent=2) + "\n")
    else:
        _print_summary(out.console, report)
    _exit_now(exit_code(report))


class _Output:
    """As for `jaxfix`: the rounds (what raised, the diffs, what was fixed) on stdout, the summary
    and errors on stderr; with --format json stdout holds the report alone. Printed while the
    next run goes on (and rich imported then): a round is told when it is done, and printed
    once the next run has started or the loop has ended."""

    def __init__(self, color: str, output_format: str, *, quiet: bool, dry_run: bool):
        self.color, self.output_format = color, output_format
        self.quiet, self.dry_run = quiet, dry_run
        self.waiting: list[Round] = []
        self._console: Console | None = None
        self._rounds: Console | None = None

    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = make_console(self.color, stdout=False)
        return self._console

    @property
    def rounds(self) -> Console:
        if self._rounds is None:
            self._rounds = (
                self.console
                if self.output_format == "json"
                else make_console(self.color, stdout=True)
            )
        return self._rounds

    def started(self, number: int, command: tuple[str, ...]) -> None:
        if number == 1 and self.output_format == "text":
            from rich.text import Text

            self.rounds.print(
                Text(
                    printable(f"jaxfix repair: running {shlex.join(command)}"),
                    style="bold",
                ),
                soft_wrap=True,
            )
        self.rounds_done()

    def rounds_done(self) -> None:
        while self.waiting:
            _print_round(
                self.rounds, self.waiting.pop(0), quiet=self.quiet, dry_run=self.dry_run
            )


def _exit_now(code: int) -> None:
    """Every fix is written and confirmed and the recording directory is gone: skip tearing the
    interpreter down (libcst's modules and trees), a noticeable part of the loop's overhead."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def exit_code(report: RepairReport) -> int:
    if report.passed:
        return EXIT_PASSED
    return EXIT_ERROR if report.stop is Stop.NOT_STARTED else EXIT_FAILING


def _failure(failure: Failure) -> str:
    return f"{failure.test or 'the program'}: {failure.exception}: {failure.message}"


def _where(outcome: SiteOutcome) -> str:
    return (
        f"{display_path(outcome.path)}:{outcome.line}"
        if outcome.path
        else "(not in the tree)"
    )


def _print_round(
    console: Console, current: Round, *, quiet: bool, dry_run: bool
) -> None:
    from rich.text import Text

    from jaxfix.cli import render

    run = current.run
    if run.returncode is None:
        console.print(
            Text(
                printable(f"error: {run.problem}; nothing was run, nothing fixed"),
                style="red",
            ),
            soft_wrap=True,
        )
        return
    status = (
        "passed"
        if run.returncode == 0 and not run.timed_out
        else ("timed out" if run.timed_out else f"exit {run.returncode}")
    )
    codes = Counter(r.code for r in current.raised)
    said = (
        ", ".join(f"{code} x{n}" for code, n in sorted(codes.items()))
        or f"none of {codes_range()}"
    )
    other = (
        f", {len(current.failures)} other failure{'s' if len(current.failures) != 1 else ''}"
        if current.failures
        else ""
    )
    console.print(
        Text(
            f"run {current.number} ({status}, {run.seconds:.1f} s): raised {said}{other}",
            style="bold",
        ),
        soft_wrap=True,
    )
    for raised in current.raised:
        where = f"{display_path(raised.path)}:{raised.line}" if raised.path else "?"
        line = Text(
            printable(
                f"  {raised.code} at {where}"
                + (f" in {raised.test}" if raised.test else "")
            )
        )
        if raised.problem:
            line.append(printable(f": not used: {raised.problem}"), style="yellow")
        console.print(line, soft_wrap=True)
    for problem in current.problems:
        console.print(
            Text(printable(f"  evidence: {problem}"), style="yellow"), soft_wrap=True
        )
    for failure in current.failures[:10]:
        console.print(
            Text(printable(f"  not jaxfix's: {_failure(failure)}"), style="dim"),
            soft_wrap=True,
        )
    if not quiet:
        for result in current.results:
            render.render_diff(console, result, dry_run=dry_run or not result.written)
        for diff in current.data_diffs:
            render.render_data_diff(console, diff, current.results, dry_run=dry_run)
    for outcome in current.outcomes:
        if outcome.fixed:
            console.print(
                Text(
                    printable(
                        f"  {'would fix' if dry_run else 'fixed'} {outcome.code} at {_where(outcome)}: {outcome.detail}"
                    ),
                    style="green",
                ),
                soft_wrap=True,
            )
        else:
            console.print(
                Text(
                    printable(
                        f"  {'' if outcome.undone else 'not fixed '}{outcome.code} at {_where(outcome)}: {outcome.detail}"
                    ),
                    style="yellow",
                ),
                soft_wrap=True,
            )
    if (
        run.returncode not in (0, None)
        and not current.raised
        and not current.failures
        and run.output_tail
    ):
        console.print(
            Text(
                "  its output ends:\n"
                + "\n".join(
                    "    " + printable(ln) for ln in run.output_tail.splitlines()
                ),
                style="dim",
            ),
            soft_wrap=True,
        )


def _print_summary(console: Console, report: RepairReport) -> None:
    from rich.table import Table
    from rich.text import Text

    style = "green" if report.passed else "red"
    if all(r.run.returncode is None for r in report.rounds):
        return  # the round's line said why, and a table of zeros would add nothing
    console.print(
        Text(printable(f"jaxfix repair: {report.reason}"), style=style), soft_wrap=True
    )
    table = Table(
        title="jaxfix repair summary", title_justify="left", show_header=False
    )
    table.add_column()
    table.add_column()
    fixed = Counter(o.code for o in report.fixed)
    table.add_row(
        "sites fixed",
        str(len(report.fixed))
        + (
            f" ({', '.join(f'{c} x{n}' for c, n in sorted(fixed.items()))})"
            if fixed
            else ""
        ),
    )
    if report.dry_run:
        table.add_row("sites with a fix shown (dry run)", str(len(report.would_fix)))
    table.add_row("sites left", str(len(report.left)))
    table.add_row("other failures (not jaxfix's)", str(len(report.failures)))
    fix_rounds = sum(1 for r in report.rounds if r.outcomes)
    table.add_row(
        "rounds",
        f"{fix_rounds} ({len(report.rounds)} run{'s' if len(report.rounds) != 1 else ''})",
    )
    table.add_row(
        "time",
        f"{report.seconds:.1f} s (command {report.command_seconds:.1f} s, jaxfix {report.overhead_seconds:.1f} s)",
    )
    console.print(table)
    for outcome in report.left:
        console.print(
            Text(
                printable(
                    f"left: {outcome.code} at {_where(outcome)}: {outcome.detail}"
                ),
                style="yellow",
            ),
            soft_wrap=True,
        )
    for failure in report.failures[:20]:
        console.print(
            Text(printable(f"not jaxfix's: {_failure(failure)}"), style="dim"),
            soft_wrap=True,
        )


def _outcome_json(outcome: SiteOutcome) -> dict[str, Any]:
    return {
        "code": outcome.code,
        "path": display_path(outcome.path) if outcome.path else None,
        "line": outcome.line,
        "round": outcome.round,
        "detail": outcome.detail,
        "tests": list(outcome.tests),
        "message": outcome.message,
    }


def report_json(report: RepairReport) -> dict[str, Any]:
    """The final report as `--format json` prints it (schema `jaxfix-repair/1`, docs/repair.md)."""
    return {
        "schema": REPORT_SCHEMA,
        "command": list(report.command),
        "passed": report.passed,
        "stop": report.stop.value,
        "reason": report.reason,
        "fixed": [_outcome_json(o) for o in report.fixed],
        "left": [_outcome_json(o) for o in report.left],
        "other_failures": [
            {"test": f.test, "exception": f.exception, "message": f.message}
            for f in report.failures
        ],
        "rounds": [
            {
                "number": r.number,
                "exit_code": r.run.returncode,
                "timed_out": r.run.timed_out,
                "seconds": round(r.run.seconds, 3),
                "raised": [
                    {
                        "code": x.code,
                        "path": display_path(x.path) if x.path else None,
                        "line": x.line,
                        "test": x.test,
                        "problem": x.problem,
                    }
                    for x in r.raised
                ],
                "files_changed": [display_path(f.path) for f in r.results],
                "undone": [_outcome_json(o) for o in r.outcomes if o.undone],
            }
            for r in report.rounds
        ],
        "seconds": round(report.seconds, 3),
        "command_seconds": round(report.command_seconds, 3),
    }
