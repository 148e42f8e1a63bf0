"""`jaxfix migrate [OPTIONS] REPO... | --repos FILE`: branch, fix, verify and commit in many repositories.

Exit codes: 0 every repository done with nothing left; 1 some repository was refused, failed
(verify included), has diagnostics left or files in error (or, with --dry-run, would change);
2 usage error; 128 + the signal when interrupted: 130, 143 or 129 (re-run with the same --out to resume).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from jaxfix.bot.rest import ApiError
from jaxfix.check.registry import codes_range
from jaxfix.check.runner import default_jobs
from jaxfix.cli.consoles import make_console
from jaxfix.cli.flags import check_flags_alone, setting_flags, setting_values
from jaxfix.fleet import journal, logs
from jaxfix.fleet.dispatch import NOT_STARTED, STOP_SIGNALS, StopRequest, dispatch
from jaxfix.fleet.executors import (
    DaskCluster,
    Executor,
    InProcess,
    LocalPool,
    MissingExtra,
    require_dask,
)
from jaxfix.fleet.pulls import (
    DEFAULT_API,
    HOSTS,
    TOKEN_VARIABLES,
    CodeHost,
    open_request,
)
from jaxfix.fleet.resume import own_branch, result_options, why_redo
from jaxfix.fleet.sources import (
    RepoSource,
    branch_for,
    from_list_file,
    list_line,
    matches,
    parse_source,
    unique_names,
)
from jaxfix.fleet.unit import Outcome, for_source, origin_url
from jaxfix.ground.escaping import (
    markdown_block,
    markdown_code,
    markdown_text,
    printable,
)
from jaxfix.ground.interrupts import signals_handled
from jaxfix.settings.table import MIGRATE
from jaxfix.workflows.git import GitError, git
from jaxfix.workflows.migrate import DEFAULT_BRANCH, MigrateOptions, RepoReport, Status
from jaxfix.write.safe_write import write_file

EXIT_DONE, EXIT_ATTENTION = 0, 1  # interrupted: 128 + the signal (130 for Ctrl-C)
REPORT_MD = "report.md"
_STATUS_STYLES = {
    Status.CHANGED: "green",
    Status.CLEAN: "dim",
    Status.IMPROVED: "yellow",
    Status.FAILED: "red",
    Status.SKIPPED: "yellow",
    Status.LEFT: "yellow",
    Status.ERRORS: "red",
    Status.INTERRUPTED: "yellow",
}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("repo_paths", metavar="REPO...", nargs=-1)
@click.option(
    "--repos",
    "repos_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="File with one repository per line ('#' starts a comment): a work tree's path, or a URL git can clone, optionally URL@branch.",
)
@click.option(
    "--branch",
    default=DEFAULT_BRANCH,
    show_default=True,
    help="Branch to create from each repository's HEAD; {name} in it is the repository's name.",
)
@click.option(
    "--force-branch",
    is_flag=True,
    help="Replace the branch if it already exists (with --push, also on the remote).",
)
@click.option(
    "--push",
    is_flag=True,
    help="Push the branch to each URL's remote, or a work tree's origin (refused if it exists there, unless --force-branch).",
)
@click.option(
    "--open-pr",
    "open_pr",
    type=click.Choice(HOSTS),
    help="With --push: open a pull request (github) or merge request (gitlab) for each pushed branch, unless one is open; the token comes from $GITHUB_TOKEN or $GITLAB_TOKEN.",
)
@click.option(
    "--api-url",
    metavar="URL",
    help="The code host's REST API for --open-pr (default: https://api.github.com, https://gitlab.com/api/v4).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Run on a Dask cluster (scheduler address, or 'local' for a LocalCluster); needs jaxfix[dask].",
)
@click.option(
    "--verify",
    "verify_command",
    metavar="CMD",
    help="Shell command run in the repository after fixing; on failure the fixes are discarded. A --repos line's own `verify: CMD` replaces it there.",
)
@click.option(
    "--verify-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=600.0,
    show_default=True,
    help="Seconds before the verify command is killed (counts as failed).",
)
@click.option(
    "--repair",
    is_flag=True,
    help="With --verify: run the repair loop in each repository (as `jaxfix repair -- CMD`): a first run for the baseline, fix what it raises, run again; green is committed, improved keeps its patch in --out.",
)
@click.option(
    "--max-rounds",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="With --repair: runs of the verify command after the first.",
)
@click.option(
    "--message", help="Commit message (default: the rules applied and their counts)."
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("jaxfix-migrate"),
    show_default=True,
    help="Directory for report.json, report.md and <repo>.patch; also what a re-run resumes from.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Check and report only; no branch, no commit, no file touched.",
)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: also print report.json's document on stdout when the run ends (the table stays on stderr).",
)
@click.option(
    "--rerun", is_flag=True, help="Also redo repositories report.json lists as done."
)
@click.option(
    "--filter",
    "filters",
    metavar="GLOB",
    multiple=True,
    help="Run only the repositories whose name or path matches GLOB (repeatable; fnmatch syntax).",
)
@click.option(
    "--max-clones",
    type=click.IntRange(min=1),
    default=None,
    help="At most N clones and pushes at a time over the whole fleet (a git server's limit; default: one per job).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Repositories in parallel (default: CPU count).",
)
@setting_flags(MIGRATE)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
)
def migrate(
    repo_paths: tuple[str, ...],
    repos_file: Path | None,
    branch: str,
    force_branch: bool,
    push: bool,
    open_pr: str | None,
    api_url: str | None,
    scheduler: str | None,
    verify_command: str | None,
    verify_timeout: float,
    repair: bool,
    max_rounds: int,
    message: str | None,
    out: Path,
    dry_run: bool,
    output_format: str,
    rerun: bool,
    filters: tuple[str, ...],
    max_clones: int | None,
    jobs: int | None,
    color: str,
    **params: Any,
) -> None:
    """Migrate many git repositories: branch, fix, verify, commit, report.

    Each REPO (or each line of --repos FILE) gets the same rules as `jaxfix`, with its own
    pyproject.toml config (flags given here override it). Refused, left untouched: not a git work tree, uncommitted changes, a
    merge or rebase in progress, an existing branch (unless --force-branch). Ctrl-C leaves every
    repository untouched or committed; re-running with the same --out resumes.

    A REPO given as a URL is cloned shallowly into a scratch directory where it runs; the
    patch and a git bundle of the commit come back (and, with --push, the branch is pushed).

    Exit codes: 0 all done; 1 some repository needs attention; 2 usage error; 130 interrupted (143 by SIGTERM, 129 by SIGHUP).
    """
    console = make_console(color, stdout=False)
    sources = _sources(repo_paths, repos_file)
    every = {source.key for source in sources}  # listed, --filter or not
    if filters:
        sources = [s for s in sources if matches(s, filters)]
        if not sources:
            raise click.UsageError(
                f"no repository matches --filter {' '.join(map(repr, filters))}"
            )
    repos = [source.key for source in sources]
    settings = setting_values(params)
    check_flags_alone(settings)  # flag errors are usage errors, once
    for name in sorted({branch_for(branch, s.name) for s in sources}):
        _check_branch_name(name)
    if repair and not (verify_command or all(s.verify for s in sources)):
        raise click.UsageError(
            "--repair needs --verify CMD: the command whose runs show what to fix"
        )
    if repair and dry_run:
        raise click.UsageError(
            "--repair runs the verify command and writes fixes between its runs: it cannot be a --dry-run"
        )
    code_host = _code_host(open_pr, api_url, push)
    if scheduler is not None:
        try:
            require_dask()
        except MissingExtra as error:
            raise click.UsageError(str(error)) from None
    options = MigrateOptions(
        branch=branch,
        force_branch=force_branch,
        verify=verify_command,
        verify_timeout=verify_timeout,
        repair=repair,
        max_rounds=max_rounds,
        message=message,
        dry_run=dry_run,
        settings=tuple(sorted(settings.items())),
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / logs.FOLDER).mkdir(exist_ok=True)
    report = load_report(out)
    run_options = result_options(options)
    started = _now()
    todo: list[RepoSource] = []
    for source in sources:
        earlier = report.get(source.key)
        if not rerun and earlier is not None and _done_before(earlier, dry_run):
            why = why_redo(earlier, source, result_options(for_source(source, options)))
            if why is None:
                continue
            console.print(
                f"{source.name}: done before, runs again: {why}",
                style="dim",
                markup=False,
            )
            source = replace(source, rebuild=own_branch(earlier))
        todo.append(source)
    if len(todo) < len(sources):
        console.print(
            f"{len(sources) - len(todo)} of {len(sources)} repositories already done in {out}; skipped (--rerun redoes them)",
            style="dim",
            markup=False,
        )
    file_names = _file_names(sources)
    recorded: set[str] = set()
    counts: Counter[str] = Counter()

    def record(source: RepoSource, outcome: Outcome) -> None:
        patch, bundle = (
            _keep(out / (file_names[source.key] + suffix), data)
            for suffix, data in ((".patch", outcome.patch), (".bundle", outcome.bundle))
        )
        entry = replace(
            outcome.entry,
            patch=patch,
            bundle=bundle,
            options=result_options(for_source(source, options)),
            finished=_now(),
            log=f"{logs.FOLDER}/{file_names[source.key]}.log",
        )
        write_file(out / entry.log, logs.render(entry))
        report[entry.repo] = entry
        recorded.add(entry.repo)
        journal.append(out, entry)  # what a resume reads, whatever happens next
        counts["failed" if entry.status is Status.FAILED else "done"] += 1
        _print_entry(console, entry)

    executor = (
        _executor(scheduler, jobs, len(todo), options, push, max_clones)
        if todo
        else None
    )
    try:
        stopped_by = _run(todo, options, executor, record, console, counts)
        if code_host is not None and stopped_by is None and not dry_run:
            stopped_by = _open_requests(
                sources, report, code_host, message, out, console
            )
        if stopped_by is not None:
            for source in todo:
                if source.key not in recorded:
                    report[source.key] = RepoReport(
                        source.key,
                        source.name,
                        Status.INTERRUPTED,
                        dry_run,
                        reason=NOT_STARTED,
                    )
    finally:  # also on an error: the report says what finished
        for key, entry in report.items():  # earlier runs' repositories no longer listed
            report[key] = replace(entry, listed=key in every)
        try:
            journal.write_snapshot(
                out,
                _ordered(report, repos),
                run={
                    "options": run_options,
                    "dry_run": dry_run,
                    "started": started,
                    "finished": _now(),
                },
            )
            write_file(
                out / REPORT_MD, report_markdown(_ordered(report, repos)).encode()
            )
        finally:
            if executor is not None:
                executor.close()
    if output_format == "json":
        click.echo((out / journal.REPORT_JSON).read_text(encoding="utf-8"), nl=False)
    entries = [report[repo] for repo in repos if repo in report]
    if entries:
        console.print(summary_table(entries))
    console.print(f"report: {out / REPORT_MD}", style="dim", markup=False)
    if stopped_by is not None:
        missing = sum(
            report[source.key].status is Status.INTERRUPTED for source in todo
        )
        console.print(
            f"interrupted by {signal.Signals(stopped_by).name}: {missing} repositor{'y' if missing == 1 else 'ies'} not migrated (left untouched); run again with --out {out} to resume",
            style="bold yellow",
            markup=False,
        )
        sys.exit(128 + stopped_by)  # 130 for SIGINT, 143 SIGTERM, 129 SIGHUP
    attention = any(
        e.needs_attention or (dry_run and e.status is Status.CHANGED) for e in entries
    )
    sys.exit(EXIT_ATTENTION if attention else EXIT_DONE)


def _code_host(open_pr: str | None, api_url: str | None, push: bool) -> CodeHost | None:
    """Where --open-pr opens requests, with the token from the environment (never a flag or a
    file, so it is in no shell history, report or repository)."""
    if open_pr is None:
        if api_url is not None:
            raise click.UsageError("--api-url is for --open-pr")
        return None
    if not push:
        raise click.UsageError(
            "--open-pr needs --push: a pull request needs the branch on the remote"
        )
    url = api_url or DEFAULT_API[open_pr]
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise click.BadParameter(f"{url!r} is no http(s) URL", param_hint="--api-url")
    variable = TOKEN_VARIABLES[open_pr]
    token = os.environ.get(variable, "").strip()
    if not token:
        raise click.UsageError(f"--open-pr {open_pr} needs a token in ${variable}")
    return CodeHost(open_pr, url, token)


def _open_requests(
    sources: list[RepoSource],
    report: dict[str, RepoReport],
    host: CodeHost,
    message: str | None,
    out: Path,
    console: Console,
) -> int | None:
    """A pull (merge) request for each repository of the run whose branch is pushed and has
    none recorded; each result recorded as it comes. The stop signal if interrupted."""
    stop = StopRequest()
    api = host.client()
    with signals_handled(stop, *STOP_SIGNALS):
        for source in sources:
            entry = report.get(source.key)
            url = source.url or origin_url(source.key)
            if (
                stop.requested
                or url is None
                or entry is None
                or entry.status is not Status.CHANGED
                or not entry.pushed
                or entry.dry_run
                or entry.pull_request is not None
            ):
                continue
            try:
                entry = replace(
                    entry,
                    pull_request=open_request(host, api, entry, url, message),
                    pull_request_error=None,
                )
                console.print(
                    f"{printable(entry.name)}: {printable(entry.pull_request or '')}",
                    markup=False,
                )
            except ApiError as error:
                entry = replace(entry, pull_request_error=str(error))
                console.print(
                    f"{printable(entry.name)}: no {_REQUEST[host.kind]}: {error}",
                    style="red",
                    markup=False,
                )
            report[entry.repo] = entry
            journal.append(out, entry)
            if entry.log and (out / entry.log).is_file():
                with open(out / entry.log, "ab") as log:
                    log.write(
                        logs.added(
                            f"{_REQUEST[host.kind]}: {entry.pull_request or entry.pull_request_error}"
                        )
                    )
    return (stop.signum or signal.SIGINT) if stop.requested else None


_REQUEST = {"github": "pull request", "gitlab": "merge request"}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _keep(path: Path, data: bytes | None) -> str | None:
    """Write `data` to `path` (or remove a stale one); its name for the report."""
    if data is None:
        path.unlink(missing_ok=True)
        return None
    write_file(path, data)
    return path.name


def _sources(repo_args: tuple[str, ...], repos_file: Path | None) -> list[RepoSource]:
    """In order, without duplicates; relative paths are from the current directory, or in
    --repos from the list file's directory."""
    lines: list[tuple[str, str | None]] = [(arg, None) for arg in repo_args]
    if repos_file is not None:
        directory = repos_file.resolve().parent
        for line in repos_file.read_text(encoding="utf-8").splitlines():
            line, verify = list_line(line.strip())
            if (
                " #" in line and not Path(from_list_file(line, directory)).exists()
            ):  # a path may hold " #" itself
                line = line[: line.index(" #")].strip()
            if line and not line.startswith("#"):
                lines.append((from_list_file(line, directory), verify))
    if not lines:
        raise click.UsageError("give at least one REPO or --repos FILE")
    sources: dict[str, RepoSource] = {}
    for line, verify in lines:
        source = replace(parse_source(line), verify=verify)
        sources.setdefault(source.key, source)
    return unique_names(list(sources.values()))


def _check_branch_name(branch: str) -> None:
    try:
        git(Path.cwd(), "check-ref-format", "--branch", branch)
        valid = True
    except GitError:
        valid = False
    except FileNotFoundError:
        raise click.UsageError("git is not installed (or not on PATH)") from None
    if not valid:
        raise click.BadParameter(
            f"'{branch}' is not a valid git branch name", param_hint="--branch"
        )


def _done_before(entry: RepoReport | None, dry_run: bool) -> bool:
    return entry is not None and entry.done and entry.dry_run == dry_run


def _file_names(sources: list[RepoSource]) -> dict[str, str]:
    """`<name>` for `<name>.patch` and `.bundle`; repositories sharing a name get a short hash of their key as well."""
    flat = {source.key: source.name.replace("/", "-") for source in sources}
    counts = Counter(flat.values())
    return {
        source.key: flat[source.key]
        if counts[flat[source.key]] == 1
        else f"{flat[source.key]}-{hashlib.sha1(source.key.encode()).hexdigest()[:8]}"
        for source in sources
    }


def _executor(
    scheduler: str | None,
    jobs: int | None,
    count: int,
    options: MigrateOptions,
    push: bool,
    max_clones: int | None,
) -> Executor:
    if scheduler is not None:
        try:
            return DaskCluster(scheduler, jobs, options, push, max_clones)
        except (
            OSError,
            ValueError,
        ) as error:  # no scheduler there (OSError subclasses), or no address
            raise click.UsageError(f"--scheduler {scheduler}: {error}") from None
    jobs = min(jobs or default_jobs(), count)
    if jobs == 1:
        return InProcess(options, push)
    return LocalPool(jobs, options, push, max_clones)


class _Display:
    """repositories done / failed / running as a rich progress bar (on a terminal)."""

    def __init__(self, console: Console, total: int, counts: Counter[str]) -> None:
        self.progress = Progress(
            console=console, disable=not console.is_terminal, transient=True
        )
        self.task = self.progress.add_task("repositories", total=total)
        self.counts = counts

    def start(self) -> None:
        self.progress.start()

    def stop(self) -> None:
        self.progress.stop()

    def running(self, names: list[str], stopping: bool) -> None:
        done, failed = self.counts["done"], self.counts["failed"]
        state = (
            f"{'stopping, waiting for' if stopping else 'running'} {len(names)}: {', '.join(names)}"
            if names
            else ""
        )
        description = escape(
            printable(f"{done} done, {failed} failed, {state}".rstrip(", "))
        )
        if (
            description != self.progress.tasks[0].description
        ):  # shown now, however fast the next repository goes
            self.progress.update(
                self.task,
                completed=done + failed,
                description=description,
                refresh=True,
            )


def _run(
    sources: list[RepoSource],
    options: MigrateOptions,
    executor: Executor | None,
    record: Callable[[RepoSource, Outcome], None],
    console: Console,
    counts: Counter[str],
) -> int | None:
    """Migrate `sources`, recording each result as it comes; the stop signal if interrupted."""
    if executor is None:
        return None
    if executor.dashboard:
        console.print(
            f"dask dashboard: {executor.dashboard}", style="dim", markup=False
        )
    stop = StopRequest(executor.interrupt)
    with signals_handled(stop, *STOP_SIGNALS):
        dispatch(
            sources,
            executor,
            record,
            stop,
            options.dry_run,
            _Display(console, len(sources), counts),
        )
    return (stop.signum or signal.SIGINT) if stop.requested else None


def load_report(out: Path) -> dict[str, RepoReport]:
    try:
        return journal.load(out)
    except journal.ResumeError as error:
        raise click.UsageError(f"{error}; remove it or pick another --out") from None


def _ordered(report: dict[str, RepoReport], repos: list[str]) -> list[RepoReport]:
    """This run's repositories in the order given, then earlier runs' others."""
    listed = set(repos)
    return [report[r] for r in repos if r in report] + [
        e for r, e in report.items() if r not in listed
    ]


def _fixes_text(entry: RepoReport) -> str:
    return ", ".join(f"{code}: {count}" for code, count in entry.fixes) or "-"


def _verify_text(entry: RepoReport) -> str:
    if entry.verify is None:
        return "-"
    if entry.verify.passed:
        return "passed"
    return (
        "timed out"
        if entry.verify.exit_code is None
        else f"failed ({entry.verify.exit_code})"
    )


def _status_text(entry: RepoReport) -> str:
    return (
        f"{entry.status.value} (dry run)"
        if entry.dry_run and entry.status is Status.CHANGED
        else entry.status.value
    )


def report_markdown(entries: list[RepoReport]) -> str:
    """Every name, message and output in it comes from the repositories (file names, git's and the
    verify command's output): each is escaped for its place (jaxfix/ground/escaping.py), so none can
    close a code fence, start a heading or a table row, or pull in an image."""
    lines = [
        "# jaxfix migrate report",
        "",
        "| repo | status | files changed | fixes by rule | diagnostics left | files not checked | verify | duration |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        cells = (
            e.name,
            _status_text(e),
            str(len(e.files_changed)),
            _fixes_text(e),
            str(len(e.left)),
            str(len(e.file_errors)),
            _verify_text(e),
            f"{e.duration:.1f}s",
        )
        lines.append("| " + " | ".join(map(markdown_text, cells)) + " |")
    for e in entries:
        notes = ([f"- {markdown_text(e.reason)}"] if e.reason else []) + [
            f"- error: {markdown_text(x)}" for x in e.file_errors
        ]
        notes += (
            [f"- before any fix, verify was {markdown_text(e.baseline)}"]
            if e.baseline
            else []
        )
        notes += (
            [
                f"- {codes_range()} errors its runs raised: {markdown_text(', '.join(e.errors))} ({e.errors_fixed} fixed)"
            ]
            if e.errors
            else []
        )
        notes += [f"- left: {markdown_text(x)}" for x in e.left]
        notes += [f"- {markdown_text(x)}" for x in e.notes]
        if not e.listed:
            notes.append("- not in the last run's list: recorded by an earlier run")
        if e.pull_request_error:
            notes.append(f"- no pull request: {markdown_text(e.pull_request_error)}")
        if e.log:
            notes.append(f"- log: {markdown_code(e.log)}")
        notes += [f"- target JAX {markdown_text(e.target_jax)}"] if e.target_jax else []
        if e.commit:
            files = ", ".join(
                f"{kind} {markdown_code(name)}"
                for kind, name in (("patch", e.patch), ("bundle", e.bundle))
                if name
            )
            notes.insert(
                0,
                f"- commit {markdown_text(e.commit)} on branch {markdown_code(e.branch or '')}"
                + (" (pushed)" if e.pushed else "")
                + (f", {files}" if files else ""),
            )
            if e.pull_request:
                notes.insert(1, f"- opened for review: {markdown_code(e.pull_request)}")
        elif e.patch and e.status is Status.IMPROVED:
            changed = ", ".join(map(markdown_code, e.files_changed))
            notes.insert(
                0,
                f"- fixes to {changed} kept in {markdown_code(e.patch)}, not committed ({markdown_code('git apply')} it)",
            )
        elif e.patch:
            changed = ", ".join(map(markdown_code, e.files_changed))
            notes.insert(
                0,
                f"- would change {changed}: diff in {markdown_code(e.patch)} ({markdown_code('git apply')} it to preview)",
            )
        if e.verify and e.verify.output_tail:
            notes += [
                "",
                f"verify {markdown_code(e.verify.command)} output (tail):",
                "",
                *markdown_block(e.verify.output_tail),
            ]
        if notes:
            lines += [
                "",
                f"## {markdown_text(e.name)}",
                "",
                markdown_code(e.repo),
                "",
                *notes,
            ]
    return "\n".join(lines) + "\n"


def _print_entry(console: Console, entry: RepoReport) -> None:
    text = Text()
    text.append(f"{printable(entry.name)}: ", style="bold")
    text.append(_status_text(entry), style=_STATUS_STYLES[entry.status])
    details = []
    if entry.files_changed:
        details.append(
            f"{len(entry.files_changed)} file{'s' if len(entry.files_changed) != 1 else ''}, fixes {_fixes_text(entry)}"
        )
    if entry.left:
        details.append(
            f"{len(entry.left)} diagnostic{'s' if len(entry.left) != 1 else ''} left"
        )
    if entry.file_errors:
        details.append(
            f"{len(entry.file_errors)} file{'s' if len(entry.file_errors) != 1 else ''} in error"
        )
    if entry.reason:
        details.append(entry.reason)
    details += entry.notes
    if (
        entry.errors and entry.status is not Status.IMPROVED
    ):  # improved: its reason counts them
        details.append(
            f"{entry.errors_fixed} of {len(entry.errors)} {codes_range()} errors fixed: {', '.join(entry.errors[:3])}"
            + (", ..." if len(entry.errors) > 3 else "")
        )
    if entry.patch and (entry.dry_run or entry.status is Status.IMPROVED):
        details.append(f"diff in {entry.patch}")
    if entry.target_jax:
        details.append(f"target JAX {entry.target_jax}")
    if details:
        text.append(
            printable(" (" + "; ".join(details) + ")")
        )  # a reason may quote git or a file name
    console.print(text, soft_wrap=True)


def summary_table(entries: list[RepoReport]) -> Table:
    table = Table(title="jaxfix migrate summary", title_justify="left")
    for column, justify in (
        ("repo", "left"),
        ("status", "left"),
        ("files", "right"),
        ("fixes by rule", "left"),
        ("left", "right"),
        ("errors", "right"),
        ("verify", "left"),
        ("time", "right"),
    ):
        table.add_column(column, justify=justify)
    for e in entries:
        table.add_row(
            Text(printable(e.name)),
            Text(_status_text(e), style=_STATUS_STYLES[e.status]),
            str(len(e.files_changed)),
            _fixes_text(e),
            str(len(e.left)),
            str(len(e.file_errors)),
            _verify_text(e),
            f"{e.duration:.1f}s",
        )
    counts = Counter(e.status.value for e in entries)
    table.caption = ", ".join(
        f"{counts[s.value]} {s.value}" for s in Status if counts[s.value]
    )
    return table
