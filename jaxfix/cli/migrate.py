"""`jaxfix migrate [OPTIONS] REPO... | --repos FILE`: branch, fix, verify and commit in many repositories.

Exit codes: 0 every repository done with nothing left; 1 some repository was refused, failed
(verify included), has diagnostics left or files in error (or, with --dry-run, would change);
2 usage error; 130 interrupted (re-run with the same --out to resume).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from jaxfix import __version__
from jaxfix.cli.flags import options_from, setting_flags, setting_values
from jaxfix.config import Config
from jaxfix.migrate import (
    DEFAULT_BRANCH,
    MigrateOptions,
    RepoReport,
    Status,
    migrate_repo,
)
from jaxfix.runner import default_jobs
from jaxfix.safe_write import write_file
from jaxfix.settings import MIGRATE

EXIT_DONE, EXIT_ATTENTION, EXIT_INTERRUPTED = 0, 1, 130
REPORT_JSON, REPORT_MD = "report.json", "report.md"
_STATUS_STYLES = {Status.CHANGED: "green", Status.CLEAN: "dim", Status.FAILED: "red", Status.SKIPPED: "yellow"}
_POLL_SECONDS = 0.2


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("repo_paths", metavar="REPO...", nargs=-1, type=click.Path(path_type=Path))
@click.option("--repos", "repos_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="File with one repository path per line ('#' starts a comment).")
@click.option("--branch", default=DEFAULT_BRANCH, show_default=True, help="Branch to create from each repository's HEAD.")
@click.option("--force-branch", is_flag=True, help="Replace the branch if it already exists.")
@click.option("--verify", "verify_command", metavar="CMD", help="Shell command run in the repository after fixing; on failure the fixes are discarded.")
@click.option("--verify-timeout", type=click.FloatRange(min=0, min_open=True), default=600.0, show_default=True, help="Seconds before the verify command is killed (counts as failed).")
@click.option("--message", help="Commit message (default: the rules applied and their counts).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("jaxfix-migrate"), show_default=True,
              help="Directory for report.json, report.md and <repo>.patch; also what a re-run resumes from.")
@click.option("--dry-run", is_flag=True, help="Check and report only; no branch, no commit, no file touched.")
@click.option("--rerun", is_flag=True, help="Also redo repositories report.json lists as done.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Repositories in parallel (default: CPU count).")
@setting_flags(MIGRATE)
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
def migrate(repo_paths: tuple[Path, ...], repos_file: Path | None, branch: str, force_branch: bool, verify_command: str | None,
            verify_timeout: float, message: str | None, out: Path, dry_run: bool, rerun: bool, jobs: int | None,
            color: str, **params: Any) -> None:
    """Migrate many git repositories: branch, fix, verify, commit, report.

    Each REPO (or each line of --repos FILE) gets the same rules as `jaxfix`, with its own
    pyproject.toml config (flags given here override it). Refused, left untouched: not a git work tree, uncommitted changes, a
    merge or rebase in progress, an existing branch (unless --force-branch). Ctrl-C leaves every
    repository untouched or committed; re-running with the same --out resumes.

    Exit codes: 0 all done; 1 some repository needs attention; 2 usage error; 130 interrupted.
    """
    console = Console(stderr=True, force_terminal=True if color == "always" else None, no_color=color == "never", highlight=False)
    repos = _repo_list(repo_paths, repos_file)
    settings = setting_values(params)
    options_from(Config(None, {}), settings)  # flag errors are usage errors, once
    _check_branch_name(branch)
    options = MigrateOptions(
        branch=branch, force_branch=force_branch, verify=verify_command, verify_timeout=verify_timeout,
        message=message, dry_run=dry_run, settings=tuple(sorted(settings.items())),
    )
    out.mkdir(parents=True, exist_ok=True)
    report = load_report(out)
    todo = [repo for repo in repos if rerun or not _done_before(report.get(repo), dry_run)]
    if len(todo) < len(repos):
        console.print(f"{len(repos) - len(todo)} of {len(repos)} repositories already done in {out / REPORT_JSON}; skipped (--rerun redoes them)", style="dim", markup=False)
    patch_names = _patch_names(repos)
    recorded: set[str] = set()

    def record(entry: RepoReport, patch: bytes | None) -> None:
        stale = out / patch_names[entry.repo]
        if patch is not None:
            write_file(stale, patch)
            entry = replace(entry, patch=stale.name)
        elif stale.exists():
            stale.unlink()
        report[entry.repo] = entry
        recorded.add(entry.repo)
        write_report_json(out, _ordered(report, repos))  # after every repository: what a resume reads
        _print_entry(console, entry)

    interrupted = _run(todo, options, jobs or default_jobs(), record, console)
    write_report_json(out, _ordered(report, repos))
    write_file(out / REPORT_MD, report_markdown(_ordered(report, repos)).encode())
    entries = [report[repo] for repo in repos if repo in report]
    if entries:
        console.print(summary_table(entries))
    console.print(f"report: {out / REPORT_MD}", style="dim", markup=False)
    if interrupted:
        missing = len(todo) - len(recorded)
        console.print(f"interrupted: {missing} repositor{'y' if missing == 1 else 'ies'} not migrated (left untouched); run again with --out {out} to resume", style="bold yellow", markup=False)
        sys.exit(EXIT_INTERRUPTED)
    attention = any(e.needs_attention or (dry_run and e.status is Status.CHANGED) for e in entries)
    sys.exit(EXIT_ATTENTION if attention else EXIT_DONE)


def _repo_list(repo_paths: tuple[Path, ...], repos_file: Path | None) -> list[str]:
    """Absolute real paths, in order, without duplicates; relative paths are from the current directory."""
    paths = list(repo_paths)
    if repos_file is not None:
        for line in repos_file.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if " #" in line and not Path(line).expanduser().exists():  # a path may hold " #" itself
                line = line[:line.index(" #")].strip()
            if line and not line.startswith("#"):
                paths.append(Path(line).expanduser())
    if not paths:
        raise click.UsageError("give at least one REPO or --repos FILE")
    return list(dict.fromkeys(os.path.realpath(p) for p in paths))


def _check_branch_name(branch: str) -> None:
    try:
        valid = subprocess.run(["git", "check-ref-format", "--branch", branch], capture_output=True, check=False).returncode == 0
    except FileNotFoundError:
        raise click.UsageError("git is not installed (or not on PATH)") from None
    if not valid:
        raise click.BadParameter(f"'{branch}' is not a valid git branch name", param_hint="--branch")


def _done_before(entry: RepoReport | None, dry_run: bool) -> bool:
    return entry is not None and entry.done and entry.dry_run == dry_run


def _patch_names(repos: list[str]) -> dict[str, str]:
    """`<name>.patch`; repositories sharing a name get a short hash of their path as well."""
    counts = Counter(Path(repo).name for repo in repos)
    return {
        repo: f"{Path(repo).name}.patch" if counts[Path(repo).name] == 1
        else f"{Path(repo).name}-{hashlib.sha1(repo.encode()).hexdigest()[:8]}.patch"
        for repo in repos
    }


class _StopRequest:
    """The SIGINT handler while repositories run: finish or put back what is running, start nothing new."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: object) -> None:
        self.requested = True


def _ignore_interrupts() -> None:
    """Idle pool workers ignore Ctrl-C; `migrate_repo` handles it while it runs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(repos: list[str], options: MigrateOptions, jobs: int, record: Callable[[RepoReport, bytes | None], None], console: Console) -> bool:
    """Migrate `repos`, recording each result as it comes; True if interrupted."""
    if not repos:
        return False
    stop = _StopRequest()
    previous = signal.signal(signal.SIGINT, stop)
    try:
        if jobs == 1 or len(repos) == 1:
            _run_here(repos, options, record, console, stop)
        else:
            _run_in_pool(repos, options, min(jobs, len(repos)), record, console, stop)
    finally:
        signal.signal(signal.SIGINT, previous)
    return stop.requested


def _progress(console: Console) -> Progress:
    return Progress(console=console, disable=not console.is_terminal, transient=True)


def _run_here(repos: list[str], options: MigrateOptions, record: Callable[[RepoReport, bytes | None], None], console: Console, stop: _StopRequest) -> None:
    with _progress(console) as progress:
        task = progress.add_task("repositories", total=len(repos))
        for repo in repos:
            if stop.requested:
                return
            progress.update(task, description=escape(f"migrating {Path(repo).name}"))
            try:
                entry, patch = migrate_repo(repo, options)
            except KeyboardInterrupt:
                stop.requested = True
                return
            record(entry, patch)
            progress.advance(task)


def _run_in_pool(repos: list[str], options: MigrateOptions, jobs: int, record: Callable[[RepoReport, bytes | None], None], console: Console, stop: _StopRequest) -> None:
    """At most `jobs` repositories are handed out at a time, so after Ctrl-C none starts that had not."""
    waiting = iter(repos)
    with ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_interrupts) as pool:
        running: dict[Future, str] = {}

        def hand_out() -> None:
            for repo in waiting:
                running[pool.submit(migrate_repo, repo, options)] = repo
                return

        # Workers are forked at the first submit: before rich starts its refresh thread.
        for _ in range(jobs):
            hand_out()
        with _progress(console) as progress:
            task = progress.add_task("repositories", total=len(repos))
            while running:
                done, _ = wait(running, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
                for future in done:
                    repo = running.pop(future)
                    progress.advance(task)
                    try:
                        entry, patch = future.result()
                    except KeyboardInterrupt:
                        continue  # the worker put the repository back
                    except Exception as error:  # noqa: BLE001 - e.g. a worker killed by the OS
                        entry, patch = RepoReport(repo, Path(repo).name, Status.FAILED, options.dry_run,
                                                  reason=f"worker failed ({type(error).__name__}: {error}); check the repository"), None
                    record(entry, patch)
                    if not stop.requested:
                        hand_out()
                names = ", ".join(Path(repo).name for repo in running.values())
                progress.update(task, description=escape(f"{'stopping' if stop.requested else 'migrating'} {names}"))


def load_report(out: Path) -> dict[str, RepoReport]:
    path = out / REPORT_JSON
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {entry["repo"]: RepoReport.from_json(entry) for entry in data["repos"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise click.UsageError(f"{path}: cannot resume from it ({type(error).__name__}: {error}); remove it or pick another --out") from None


def _ordered(report: dict[str, RepoReport], repos: list[str]) -> list[RepoReport]:
    """This run's repositories in the order given, then earlier runs' others."""
    listed = set(repos)
    return [report[r] for r in repos if r in report] + [e for r, e in report.items() if r not in listed]


def write_report_json(out: Path, entries: list[RepoReport]) -> None:
    document = {"jaxfix": __version__, "repos": [e.to_json() for e in entries]}
    write_file(out / REPORT_JSON, (json.dumps(document, indent=2) + "\n").encode())


def _fixes_text(entry: RepoReport) -> str:
    return ", ".join(f"{code}: {count}" for code, count in entry.fixes) or "-"


def _verify_text(entry: RepoReport) -> str:
    if entry.verify is None:
        return "-"
    if entry.verify.passed:
        return "passed"
    return "timed out" if entry.verify.exit_code is None else f"failed ({entry.verify.exit_code})"


def _status_text(entry: RepoReport) -> str:
    return f"{entry.status.value} (dry run)" if entry.dry_run and entry.status is Status.CHANGED else entry.status.value


def report_markdown(entries: list[RepoReport]) -> str:
    lines = [
        "# jaxfix migrate report", "",
        "| repo | status | files changed | fixes by rule | diagnostics left | verify | duration |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        cells = (e.name, _status_text(e), str(len(e.files_changed)), _fixes_text(e), str(len(e.left)), _verify_text(e), f"{e.duration:.1f}s")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    for e in entries:
        notes = ([f"- {e.reason}"] if e.reason else []) + [f"- error: {x}" for x in e.file_errors] + [f"- left: {x}" for x in e.left]
        if e.commit:
            notes.insert(0, f"- commit {e.commit} on branch `{e.branch}`" + (f", patch `{e.patch}`" if e.patch else ""))
        elif e.patch:
            notes.insert(0, f"- would change {', '.join(f'`{f}`' for f in e.files_changed)}: diff in `{e.patch}` (`git apply` it to preview)")
        if e.verify and e.verify.output_tail:
            notes += ["", f"verify `{e.verify.command}` output (tail):", "", "```", e.verify.output_tail, "```"]
        if notes:
            lines += ["", f"## {e.name}", "", f"`{e.repo}`", "", *notes]
    return "\n".join(lines) + "\n"


def _print_entry(console: Console, entry: RepoReport) -> None:
    text = Text()
    text.append(f"{entry.name}: ", style="bold")
    text.append(_status_text(entry), style=_STATUS_STYLES[entry.status])
    details = []
    if entry.files_changed:
        details.append(f"{len(entry.files_changed)} file{'s' if len(entry.files_changed) != 1 else ''}, fixes {_fixes_text(entry)}")
    if entry.left:
        details.append(f"{len(entry.left)} diagnostic{'s' if len(entry.left) != 1 else ''} left")
    if entry.file_errors:
        details.append(f"{len(entry.file_errors)} file{'s' if len(entry.file_errors) != 1 else ''} in error")
    if entry.reason:
        details.append(entry.reason)
    if entry.patch and entry.dry_run:
        details.append(f"diff in {entry.patch}")
    if details:
        text.append(" (" + "; ".join(details) + ")")
    console.print(text, soft_wrap=True)


def summary_table(entries: list[RepoReport]) -> Table:
    table = Table(title="jaxfix migrate summary", title_justify="left")
    for column, justify in (("repo", "left"), ("status", "left"), ("files", "right"), ("fixes by rule", "left"),
                            ("left", "right"), ("verify", "left"), ("time", "right")):
        table.add_column(column, justify=justify)
    for e in entries:
        table.add_row(Text(e.name), Text(_status_text(e), style=_STATUS_STYLES[e.status]), str(len(e.files_changed)),
                      _fixes_text(e), str(len(e.left)), _verify_text(e), f"{e.duration:.1f}s")
    counts = Counter(e.status.value for e in entries)
    table.caption = ", ".join(f"{counts[s.value]} {s.value}" for s in Status if counts[s.value])
    return table
