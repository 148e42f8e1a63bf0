"""`jaxfix [OPTIONS] [PATH]...`: fix in place, or preview with --dry-run / --check / --diff.

Exit codes: 0 nothing left to do; 1 diagnostics remain (or, with --check/--dry-run/--diff,
changes are pending); 2 usage error or a file could not be processed.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import json
import os
import re
import signal
import sys
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from jaxfix import __version__
from jaxfix.check.run import Run
from jaxfix.cli.consoles import make_console
from jaxfix.cli.flags import (
    RULES_MARK,
    RulesHelpCommand,
    RulesHelpOption,
    build_run_from,
    register_rule_modules,
    setting_flags,
    setting_values,
)
from jaxfix.cli.format_help import format_option_help
from jaxfix.cli.modes import run_mode
from jaxfix.ground.diagnostics import FileResult
from jaxfix.ground.interrupts import Interrupted, interrupt, raise_if_interrupted
from jaxfix.settings.table import MAIN
from jaxfix.sources.discovery import Discovery, discover, is_excluded
from jaxfix.sources.paths import display_path
from jaxfix.write.safe_write import remove_stale_temps

if TYPE_CHECKING:
    from rich.console import Console

    from jaxfix.evidence.facts import Evidence

# libcst (the rules, the engine, the machine formats that describe rules) is imported where it
# is needed, not here: a run that parses no file should not pay half a second for it. Nor is
# rich (jaxfix/cli/render.py, progress.py), about a tenth of a warm run: `-q` with nothing to
# report, or a machine format, prints nothing through it.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
_CONTEXT = {"help_option_names": ["-h", "--help"]}


def _exit_code(results: list[FileResult], *, write: bool, had_errors: bool) -> int:
    if had_errors or any(r.error for r in results):
        return EXIT_ERROR
    if write:
        return EXIT_FINDINGS if any(r.remaining for r in results) else EXIT_CLEAN
    return (
        EXIT_FINDINGS
        if any(r.changes or r.diagnostics for r in results)
        else EXIT_CLEAN
    )


def _needs_fixed_code(
    mode: str, output_format: str, *, statistics: bool, add_noqa: bool
) -> bool:
    """Whether the run writes or shows fixed code; not `--check` printing text, counts or a
    format without it (its results may then come from the cache with their fixes summarized)."""
    if mode != "check" or add_noqa:
        return True
    if statistics or output_format == "text":
        return False
    from jaxfix.cli.formats import WITHOUT_FIXED_CODE

    return output_format not in WITHOUT_FIXED_CODE


def _run_stdin(
    run: Run,
    lines: dict[Path, frozenset[int]] | None,
    stdin_filename: str | None,
    mode: str,
    out: Console,
    err: Console,
    output_format: str,
) -> int:
    """Fix mode prints the code on stdout, so its diagnostics go to stderr; so do --diff's."""
    from jaxfix.check.engine import check_file
    from jaxfix.check.unsafe_preview import with_unsafe_preview
    from jaxfix.cli import render
    from jaxfix.write.diffs import unified_diff

    path, options = Path(stdin_filename or "-"), run.options
    try:
        if sys.stdin is None:
            raise OSError("stdin is closed")
        source = sys.stdin.buffer.read(options.max_file_size + 1)
    except (OSError, ValueError) as error:  # ValueError: reading a closed file
        render.render_error(
            err, path, f"cannot read stdin: {getattr(error, 'strerror', None) or error}"
        )
        return EXIT_ERROR
    if len(source) > options.max_file_size:
        render.render_error(
            err,
            path,
            f"input is larger than max-file-size ({options.max_file_size} bytes)",
        )
        return EXIT_ERROR
    if stdin_filename and any(
        is_excluded(p, options.exclude) for p in (path, *path.parents)
    ):
        if mode == "fix" and output_format == "text":
            sys.stdout.buffer.write(source)
        return EXIT_CLEAN
    with run.checking() if stdin_filename else nullcontext(run):
        result = with_unsafe_preview(
            check_file(
                run,
                path,
                source,
                None if lines is None else lines.get(path.resolve(), frozenset()),
            ),
            run,
        )
    if mode == "fix":  # what a run writing files would write
        result = _other_files_left(result)
    if result.error is None and result.fixed is None and not result.diagnostics:
        from jaxfix.sources.kinds import source_of

        found = source_of(path, source).syntax_error()  # stdin is a file the user named
        if found:
            result = FileResult(path, source, error=found[0], error_location=found[1])
    if output_format != "text":
        from jaxfix.check.engine import selected_rules
        from jaxfix.cli.formats import FORMATS, RunInfo

        sys.stdout.write(
            FORMATS[output_format](
                [result], RunInfo(tuple(selected_rules(options)), False)
            )
        )
        return _exit_code([result], write=False, had_errors=False)
    if result.error:
        render.render_error(err, path, result.error, result.error_location)
        if mode == "fix":
            sys.stdout.buffer.write(source)
        return EXIT_ERROR
    if mode == "diff":
        if result.fixed is not None:
            sys.stdout.buffer.write(
                unified_diff(render.display_path(path), source, result.fixed)
            )
    elif mode == "fix":
        sys.stdout.buffer.write(result.fixed if result.fixed is not None else source)
    if mode == "dry-run" and result.fixed is not None:
        render.render_diff(out, result)
    render.render_diagnostics(
        out if mode in ("check", "dry-run") else err,
        result,
        only_remaining=mode in ("fix", "dry-run"),
        dry_run=mode != "fix",
    )
    if mode == "dry-run":
        from jaxfix.cli.unsafe_preview import render_unsafe_preview

        render_unsafe_preview(out, result)
    return _exit_code([result], write=mode == "fix", had_errors=False)


def _other_files_left(result: FileResult) -> FileResult:
    """Code from stdin comes back fixed on stdout and nothing else is written: a fix whose
    edit is of another file (`Diagnostic.data_edits`) stays a finding, saying so (a check or
    a preview says what a run on the files would do, as for them)."""
    if not any(d.applied and d.data_edits for d in result.diagnostics):
        return result
    return replace(
        result,
        diagnostics=tuple(
            replace(
                d,
                applied=False,
                withheld=True,
                message=f"{d.message} (not written: code from stdin changes no other file)",
            )
            if d.applied and d.data_edits
            else d
            for d in result.diagnostics
        ),
    )


def _print_format_help(
    ctx: click.Context, _param: click.Parameter, value: bool
) -> None:
    if value and not ctx.resilient_parsing:
        from jaxfix.cli.format_help import format_help_text

        click.echo(format_help_text(), nl=False)
        ctx.exit()


class _MainCommand(RulesHelpCommand):
    """The main command's help also lists the subcommands."""

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_usage(ctx, formatter)
        formatter.write_usage(
            ctx.command_path, "COMMAND [OPTIONS] [ARGS]...", prefix="       "
        )

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help(ctx, formatter)
        rows = [
            (name, cli.get_command(ctx, name).get_short_help_str(limit=90))
            for name in cli.list_commands(ctx)
        ]
        with formatter.section("Commands (jaxfix COMMAND --help)"):
            formatter.write_dl(rows)


_HELP = f"""Find and fix JAX sharding code that recent JAX releases reject ({RULES_MARK}).

    Fixes safe violations in place by default. Exit codes: 0 nothing left to do; 1 diagnostics
    remain (or changes pending with --check/--dry-run/--diff); 2 usage error or a file failed.
    """


@click.command(cls=_MainCommand, context_settings=_CONTEXT, help=_HELP)
@click.argument("paths", metavar="[PATH]...", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show a colored diff and the diagnostics; write nothing.",
)
@click.option(
    "--check",
    "check_mode",
    is_flag=True,
    help="Write nothing; exit 1 if any file would change or any diagnostic remains.",
)
@click.option(
    "--fix/--no-fix",
    "fix",
    default=None,
    help="As ruff's: --fix writes the fixes (the default; also after `check`), --no-fix is --check.",
)
@click.option(
    "--diff",
    is_flag=True,
    help="Print only a unified diff (git apply-able) on stdout; write nothing. With --check: the same.",
)
@setting_flags(MAIN)
@click.option(
    "--diff-base",
    metavar="REV",
    help="Report and fix only lines changed since REV (git diff REV of the working tree).",
)
@click.option(
    "--from-log",
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True),
    help=f"Fix the sites where a log's tracebacks raised {RULES_MARK} ('-' for stdin); see docs/from-log.md.",
    cls=RulesHelpOption,
)
@click.option(
    "--evidence",
    "evidence_file",
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False),
    help=f"Fix the sites where a recorded run raised {RULES_MARK} (`jaxfix repair`, `pytest -p jaxfix.record`); see docs/repair.md.",
    cls=RulesHelpOption,
)
@click.option(
    "--no-cache", is_flag=True, help="Neither read nor write the result cache."
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: CPU count).",
)
@click.option(
    "--format",
    "--output-format",
    "output_format",
    default="text",
    metavar="NAME",
    help=format_option_help(),
)
@click.option(
    "--help-format",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_format_help,
    help="Describe each output format and exit.",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
)
@click.option("-q", "--quiet", is_flag=True, help="Print only diagnostics and errors.")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also say the target JAX version first, list the files that need no change, and for each call a rule looked at and left, where the value it needed was lost.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Use this pyproject.toml instead of searching.",
)
@click.option(
    "--stdin-filename",
    help="With '-': the path to use for config, the jax pin, excludes, messages and imports (default: a file in the working directory).",
)
@click.option("--list-rules", is_flag=True, help="List the rules and exit.")
@click.option(
    "--explain", metavar="CODE", help="Show a rule's full documentation and exit."
)
@click.option(
    "--show-settings",
    is_flag=True,
    help="Show the config file, project roots, target JAX version, rules and every setting in effect; exit.",
)
@click.option(
    "--show-files", is_flag=True, help="List the files that would be checked; exit."
)
@click.option(
    "--statistics",
    is_flag=True,
    help="Show counts per rule code instead of each finding (text or json).",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Add a `# jaxfix: ignore[CODE]` comment to the line of every current finding; change nothing else.",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when findings or pending changes remain (errors still exit 2).",
)
@click.version_option(__version__, "--version", prog_name="jaxfix")
def check(**params: Any) -> None:
    """The main command (its help: `_HELP`, naming the registered rules)."""
    from jaxfix.cli.output_file import OutputFile

    capture = OutputFile()
    try:
        _check(capture, **params)
    except Interrupted:
        capture.finish(keep=False)  # FILE stays as it was
        raise
    except SystemExit:
        capture.finish(keep=True)
        raise
    except BaseException:
        capture.finish(keep=False)
        raise
    capture.finish(keep=True)


def _check(
    capture: Any,
    paths: tuple[Path, ...],
    dry_run: bool,
    check_mode: bool,
    diff: bool,
    config_file: Path | None,
    jobs: int | None,
    color: str,
    output_format: str,
    quiet: bool,
    verbose: bool,
    stdin_filename: str | None,
    list_rules: bool,
    explain: str | None,
    diff_base: str | None,
    from_log: str | None,
    evidence_file: str | None,
    no_cache: bool,
    show_settings: bool,
    show_files: bool,
    statistics: bool,
    add_noqa: bool,
    exit_zero: bool,
    fix: bool | None,
    **params: Any,
) -> None:
    out = functools.cache(
        functools.partial(make_console, color, stdout=True)
    )  # made when first needed
    console = functools.cache(functools.partial(make_console, color, stdout=False))
    if list_rules or explain:
        register_rule_modules(params)
        _inform(list_rules, explain, output_format, out())
        return
    if fix is not None and (dry_run or diff):
        raise click.UsageError(
            "--fix/--no-fix choose between writing and --check: not with --dry-run or --diff"
        )
    if fix is not None:  # `jaxfix check --fix .` fixes, as `ruff check --fix .`
        check_mode = not fix
    mode = run_mode(dry_run=dry_run, check=check_mode, diff=diff)
    if fix and not paths:  # asked for in so many words, as `ruff check --fix`
        paths = (Path("."),)
    if (
        not paths
        and mode == "fix"
        and not (from_log or evidence_file or show_settings or show_files)
    ):
        raise click.UsageError(
            "No Path provided. Nothing to do: give the paths to fix ('.' for the current "
            "directory), or --check, --diff or --dry-run to only report"
        )  # black's words: a bare command writes nothing
    if output_format != "text":
        from jaxfix.check.engine import selected_rules
        from jaxfix.cli.formats import FORMATS, RunInfo
    if output_format != "text" and output_format not in FORMATS:
        raise click.UsageError(
            f"unknown format '{output_format}' (known: text, {', '.join(sorted(FORMATS))})"
        )
    path_list = list(paths) or [Path(".")]
    stdin = path_list == [Path("-")]
    config_start = (
        [Path(stdin_filename)]
        if stdin and stdin_filename
        else ([] if stdin else path_list)
    )
    flags = setting_values(params)
    run = build_run_from(
        config_start,
        flags,
        config_file=config_file,
        project=None if stdin else path_list,
        cache=not (no_cache or from_log or evidence_file),
    )
    # the unsafe fixes' preview is derived where each file is checked: only for the text
    # `--dry-run` prints (jaxfix/check/unsafe_preview.py)
    run = replace(
        run,
        previews_unsafe=mode == "dry-run"
        and output_format == "text"
        and not statistics,
    )
    options, config, target = run.options, run.config, run.target
    assert target is not None  # build_run reads it
    if verbose:
        from jaxfix.ground.escaping import printable

        console().print(
            f"jaxfix: target JAX {printable(target.describe())}",
            style="dim",
            soft_wrap=True,
            markup=False,
        )
    lines = None
    if diff_base:
        from jaxfix.check.changed_lines import ChangedLinesError, changed_lines

        try:
            lines = changed_lines(diff_base)
        except ChangedLinesError as error:
            raise click.UsageError(str(error)) from None
    if flags["output_file"]:  # a flag only: a config cannot choose where jaxfix writes
        from jaxfix.cli.output_file import destination_problem
        from jaxfix.ground.escaping import printable

        problem = destination_problem(Path(flags["output_file"]))
        if problem is not None:
            raise click.UsageError(
                printable(f"--output-file {flags['output_file']}: {problem}")
            )
        capture.start(Path(flags["output_file"]))
    if show_settings:
        from jaxfix.cli.actions import settings_text

        sys.stdout.write(
            settings_text(
                config,
                options,
                run.roots,
                flags,
                target,
                None if no_cache else run.cache_dir,
            )
        )
        return
    if add_noqa and (mode != "fix" or stdin or statistics):
        raise click.UsageError(
            "--add-noqa adds comments to the files given: combine it with no preview, --statistics or stdin"
        )
    if statistics and (mode == "diff" or output_format not in ("text", "json")):
        raise click.UsageError(
            "--statistics prints text or json counts, not a diff or another format"
        )
    if stdin and (statistics or show_files):
        raise click.UsageError(
            f"{'--statistics' if statistics else '--show-files'} is for files, not code from stdin ('-')"
        )
    if stdin and (from_log or evidence_file):
        raise click.UsageError(
            f"{'--from-log' if from_log else '--evidence'} checks files in the tree, not code from stdin ('-')"
        )
    if from_log and evidence_file:
        raise click.UsageError("--from-log and --evidence cannot be combined: give one")
    if stdin:
        code = _run_stdin(
            # Without --stdin-filename, the code is taken as a file in the working directory
            # (`-`), as `python - < file.py` runs it: no project, its imports looked up from
            # there; with it, as the file would be checked in its project (issue 40).
            run.scoped(config_start) if stdin_filename else run,
            lines,
            stdin_filename,
            mode,
            out(),
            console(),
            output_format,
        )
        sys.exit(EXIT_CLEAN if exit_zero and code == EXIT_FINDINGS else code)
    if Path("-") in path_list:
        raise click.UsageError("'-' (stdin) cannot be combined with other paths")

    if from_log:
        from jaxfix.cli.from_log import evidence_run

        log_run = evidence_run(from_log, path_list, run, console())
        found, evidence = Discovery(log_run.files, []), log_run.evidence
    elif evidence_file:
        from jaxfix.cli.evidence import evidence_file_run

        log_run = evidence_file_run(evidence_file, path_list, run, console())
        found, evidence = Discovery(log_run.files, []), log_run.evidence
    else:
        found, log_run, evidence = (
            discover(path_list, options.exclude, options.all_includes),
            None,
            None,
        )
    for path, message in found.errors:
        from jaxfix.cli import render

        render.render_error(console(), path, message)
    if not found.files and not found.errors and log_run is None:
        console().print(
            "warning: No Python files found under the given path(s)",
            style="yellow",
            markup=False,
        )  # ruff's words
    if show_files:
        from jaxfix.cli.actions import files_text

        sys.stdout.write(files_text(found.files))
        sys.exit(EXIT_ERROR if found.errors else EXIT_CLEAN)
    write = mode == "fix" and not add_noqa
    run = run.scoped(
        found.files,
        partial(_warn, console),
        # the one directory given, walked: the project's files when it is the project's root
        walked=path_list[0]
        if log_run is None and len(path_list) == 1 and not found.errors
        else None,
    )
    run = replace(
        run,
        needs_fixed_code=_needs_fixed_code(
            mode, output_format, statistics=statistics, add_noqa=add_noqa
        ),
    )
    # Files named on the command line always get their syntax errors reported; found ones with --strict.
    strict = (
        flags["strict"]
        if flags["strict"] is not None
        else bool(config.values.get("strict"))
    )
    check_syntax = set(found.files) if strict else {p for p in path_list if p.is_file()}
    remove_stale_temps(
        sorted(
            {path.parent for path in found.files}
            | ({run.cache.directory} if run.cache else set())
        )
    )
    from jaxfix.check.runner import default_jobs

    if jobs is not None and jobs > default_jobs():
        from rich.text import Text

        console().print(
            Text(
                f"warning: -j {jobs} is more than the {default_jobs()} CPUs available; using {default_jobs()}",
                style="yellow",
            )
        )
    results = _run(
        run,
        found.files,
        lines=lines,
        evidence=evidence,
        write=write,
        jobs=min(jobs or default_jobs(), default_jobs()),
        console=console,
        quiet=quiet,
        check_syntax=check_syntax,
    )
    if add_noqa:
        sys.exit(
            _add_noqa(results, console())
            or (EXIT_ERROR if found.errors else EXIT_CLEAN)
        )
    if statistics:
        from jaxfix.cli.actions import statistics as counts

        for result in results:
            if result.error:
                from jaxfix.cli import render

                render.render_error(
                    console(), result.path, result.error, result.error_location
                )
        sys.stdout.write(counts(results, write=write, output_format=output_format))
    elif output_format == "text":
        _report(results, mode, out, console, quiet=quiet, verbose=verbose)
    else:
        for result in results:
            if result.error:
                from jaxfix.cli import render

                render.render_error(
                    console(), result.path, result.error, result.error_location
                )
        sys.stdout.write(
            FORMATS[output_format](
                results, RunInfo(tuple(selected_rules(options)), write)
            )
        )
    if (
        not quiet
        and mode != "diff"
        and (found.files or found.errors or log_run is not None)
    ):
        from jaxfix.cli import render

        log_rows = (
            ()
            if log_run is None
            else (
                ("log sites already fixed", log_run.already_fixed),
                ("log tracebacks not used", log_run.errors),
            )
        )
        render.render_summary(
            console(),
            results,
            write=write,
            other_errors=len(found.errors),
            log_rows=log_rows,
            target=target.describe(),
        )
    code = _exit_code(
        results,
        write=write,
        had_errors=bool(found.errors) or bool(log_run and log_run.errors),
    )
    code = EXIT_CLEAN if exit_zero and code == EXIT_FINDINGS else code
    if (
        mode == "check"
        and not (add_noqa or flags["output_file"] or lines is not None or log_run)
        and run.cache is not None
        and not found.errors
        and all(r.error is None or r.lasting_error for r in results)
        and (output_format == "text" or all(r.fixed is None for r in results))
    ):  # shown text alone, nothing to write: a later run of the same inputs may print it again
        # (a file's error from its bytes, a syntax error, is printed again by the same bytes)
        from jaxfix.cache import warm_path

        warm_path.finish(
            code,
            run.cache,
            [*found.files, *run.scope],
            [(d.path, d.digest, d.signature) for r in results for d in r.dependencies],
        )
    sys.exit(code)


def _add_noqa(results: list[FileResult], console: Console) -> int:
    """Write the comments and say what was done on stderr; EXIT_ERROR if a file failed."""
    from jaxfix.cli import render
    from jaxfix.cli.actions import add_noqa

    for result in results:
        if result.error:
            render.render_error(
                console, result.path, result.error, result.error_location
            )
    added, files, problems = add_noqa(results)
    for problem in problems:
        console.print(problem, style="yellow", soft_wrap=True, markup=False)
    console.print(
        f"Added {added} suppression comment{'s' if added != 1 else ''} (# jaxfix: ignore[CODE]) to {files} file{'s' if files != 1 else ''}.",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )
    return (
        EXIT_ERROR
        if any(r.error for r in results) or any(": error: " in p for p in problems)
        else EXIT_CLEAN
    )


def _warn(console: Callable[[], Console], message: str) -> None:
    """One yellow warning line on stderr (a refused cache directory)."""
    from rich.text import Text

    from jaxfix.ground.escaping import printable

    console().print(
        Text(printable(f"warning: {message}"), style="yellow"), soft_wrap=True
    )


def _run(
    run: Run,
    files: list[Path],
    *,
    lines: dict[Path, frozenset[int]] | None,
    evidence: dict[Path, tuple[Evidence, ...]] | None,
    write: bool,
    jobs: int,
    console: Callable[[], Console],
    quiet: bool,
    check_syntax: set[Path],
) -> list[FileResult]:
    from jaxfix.check.runner import run_files

    if quiet:
        return run_files(
            run,
            files,
            lines=lines,
            evidence=evidence,
            write=write,
            jobs=jobs,
            check_syntax=check_syntax,
        )
    from jaxfix.cli.progress import ParseProgress

    with ParseProgress(console(), workers=jobs) as progress:
        return run_files(
            run,
            files,
            lines=lines,
            evidence=evidence,
            write=write,
            jobs=jobs,
            check_syntax=check_syntax,
            on_plan=progress.plan,
            on_done=progress.done,
        )


def _report(
    results: list[FileResult],
    mode: str,
    get_out: Callable[[], Console],
    get_err: Callable[[], Console],
    *,
    quiet: bool,
    verbose: bool,
) -> None:
    """Diffs and diagnostics on stdout (`--diff`: the diff alone); what was written, errors and
    what `--diff` left out on stderr."""
    if not verbose and not any(r.error or r.diagnostics or r.changes for r in results):
        return  # nothing to say
    from rich.text import Text

    from jaxfix.cli import render
    from jaxfix.cli.unsafe_preview import render_unsafe_preview
    from jaxfix.write.diffs import unified_diff

    out, console = get_out(), get_err()
    for result in results:
        if result.error:
            render.render_error(
                console, result.path, result.error, result.error_location
            )
            continue
        if mode == "diff":
            if result.fixed is not None:
                sys.stdout.buffer.write(
                    unified_diff(display_path(result.path), result.source, result.fixed)
                )
            continue
        if mode == "dry-run" and result.fixed is not None:
            render.render_diff(out, result)
        if result.written and not quiet:
            fixed = sum(1 for d in result.diagnostics if d.applied)
            console.print(
                Text(
                    f"fixed {render.shown_path(result.path)} ({fixed} fix{'es' if fixed != 1 else ''})",
                    style="green",
                )
            )
        render.render_diagnostics(
            out,
            result,
            only_remaining=mode in ("fix", "dry-run"),
            dry_run=mode != "fix",
        )
        if mode == "dry-run":
            render_unsafe_preview(out, result)
        if verbose:
            render.render_trails(console, result)
        if verbose and not result.diagnostics:
            console.print(
                Text(f"{render.shown_path(result.path)}: nothing to do", style="dim")
            )
    if mode in ("diff", "dry-run"):
        from jaxfix.write.data_edits import data_diffs

        for diff in data_diffs(results):  # a JSON or YAML entry a fix changes
            if mode == "diff":
                sys.stdout.buffer.write(
                    unified_diff(display_path(diff.path), diff.old, diff.new)
                )
            else:
                render.render_data_diff(out, diff, results)
    if mode == "diff":
        render.render_left_out(console, results)


def _inform(
    list_rules: bool, explain: str | None, output_format: str, out: Console
) -> None:
    """--list-rules and --explain: what the user asked to read, on stdout."""
    from jaxfix.cli import render
    from jaxfix.codemods import RULES

    if output_format not in ("text", "json"):
        raise click.UsageError(
            f"--list-rules and --explain print text or json, not '{output_format}'"
        )
    chosen = dict(RULES)
    if explain:
        rule = RULES.get(explain.strip().upper())
        if rule is None:
            raise click.UsageError(
                f"unknown rule code '{explain}' (known: {', '.join(sorted(RULES))})"
            )
        chosen = {rule.code: rule}
    if output_format == "json":
        from jaxfix.cli.rule_docs import explain_markdown, rule_record

        records = [
            rule_record(r) | ({"doc": explain_markdown(r)} if explain else {})
            for _, r in sorted(chosen.items())
        ]
        sys.stdout.write(
            json.dumps(records[0] if explain else records, indent=2) + "\n"
        )
    elif explain:
        render.render_explain(out, chosen[explain.strip().upper()])
    else:
        render.render_rules(out, RULES)


# name -> (module, attribute): imported only when used or listed.
_SUBCOMMANDS = {
    "migrate": ("jaxfix.cli.migrate", "migrate"),
    "repair": ("jaxfix.cli.repair", "repair_command"),
    "server": ("jaxfix.cli.server", "server"),
}


def _value_options() -> set[str]:
    """The main command's option names that take a value (the word after them is no path)."""
    return {
        name
        for param in check.params
        if isinstance(param, click.Option) and not param.is_flag and not param.count
        for name in param.opts + param.secondary_opts
    }


def _first_word(args: list[str]) -> int | None:
    """The index of the first positional argument of the main command in `args`, if any."""
    takes_value, i = _value_options(), 0
    while i < len(args):
        arg = args[i]
        if arg == "--":  # what follows is paths, literally
            return None
        if arg == "-" or not arg.startswith("-"):
            return i
        i += 2 if arg in takes_value else 1
    return None


def _command_words(args: list[str]) -> list[str]:
    """`args` with `check` in the path position read as `--check` (ruff's `ruff check` reports
    without writing), refusing a word there that is neither a command nor an existing path:
    a mistyped command must not leave the other paths to be fixed in place."""
    i = _first_word(args)
    if i is None:
        return args
    word = args[i]
    if word == "check":
        return [*args[:i], "--check", *args[i + 1 :]]
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", word) or os.path.lexists(word):
        return args
    if word in _SUBCOMMANDS:
        raise click.UsageError(
            f"'{word}' is a subcommand: give it first, as in `jaxfix {word} ...`"
        )
    close = difflib.get_close_matches(word, ["check", *_SUBCOMMANDS], n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise click.UsageError(
        f"no such command or path: '{word}' (commands: check, {', '.join(sorted(_SUBCOMMANDS))}; "
        f"write ./{word} for a path).{hint}"
    )


class _Jaxfix(click.Group):
    """`jaxfix [OPTIONS] [PATH]...` runs the main command; `jaxfix migrate ...` a subcommand.

    Only a first argument that is exactly a subcommand's name selects it, so `jaxfix ./migrate`
    checks a directory named migrate. Subcommands are imported when used (they import libcst).
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in _SUBCOMMANDS:
            return None
        module, attribute = _SUBCOMMANDS[name]
        return getattr(importlib.import_module(module), attribute)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        if args and args[0] in _SUBCOMMANDS:
            return super().make_context(info_name, args, parent=parent, **extra)
        return check.make_context(
            info_name, _command_words(args), parent=parent, **extra
        )

    def invoke(self, ctx: click.Context) -> Any:
        return ctx.command.invoke(ctx) if ctx.command is check else super().invoke(ctx)


cli = _Jaxfix(name="jaxfix", context_settings=_CONTEXT)


def _rule_modules_named(args: list[str]) -> list[str]:
    """The `--rule-module` values among `args`, read before click parses them so that `--help`
    names those rules too."""
    named = []
    for i, arg in enumerate(args):
        if arg == "--rule-module" and i + 1 < len(args):
            named.append(args[i + 1])
        elif arg.startswith("--rule-module="):
            named.append(arg.partition("=")[2])
    return named


def main() -> None:
    if "--help" in sys.argv or "-h" in sys.argv:
        named = _rule_modules_named(sys.argv[1:])
        if named:
            try:
                register_rule_modules({"rule_modules": named})
            except click.ClickException as problem:
                problem.show()
                sys.exit(problem.exit_code)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interrupt)
    try:
        _run_cli()
    except Interrupted as stop:
        sys.stderr.write(
            f"jaxfix: interrupted by {signal.Signals(stop.code - 128).name}; files not yet written are unchanged\n"
        )
        raise


def _run_cli() -> None:
    """The command; an interrupt whose exception was replaced or swallowed on the way (a cleanup
    failing half-done, an `Exception ignored` in a finalizer) still ends the run as interrupted."""
    try:
        cli(prog_name="jaxfix")
    except SystemExit:
        raise_if_interrupted()
        raise
    except Exception as error:  # exit 1 means findings: what escapes is an error
        raise_if_interrupted()
        from jaxfix.ground.escaping import printable

        sys.stderr.write(
            printable(
                f"jaxfix: error: internal error, run stopped: {type(error).__name__}: {error}"
            )[:2000]
            + "\n"
        )
        sys.exit(2)
