"""One repository's migration: refuse, fix, verify, commit. The unit of work `jaxfix migrate` fans out.

`migrate_repo(location, options) -> (RepoReport, patch)` shares no state with other calls and
takes and returns plain picklable values, so any executor can run it: a process pool or a
Dask cluster (`jaxfix.fleet` runs it there, and on scratch clones of URLs).

The user's checkout never leaves its branch. Fixes are written in place, staged into a
temporary index, verified, and committed with `git commit-tree`; creating the branch is the
single step that makes the migration happen. The work tree is then reset to the starting commit,
so afterwards a repository is either untouched or has exactly one new commit on the branch.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jaxfix import __version__
from jaxfix.check.registry import codes_range
from jaxfix.check.run import Run, build_run
from jaxfix.check.runner import run_files
from jaxfix.codemods import RULES
from jaxfix.evidence.records import Failure
from jaxfix.ground.diagnostics import FileResult, Safety
from jaxfix.ground.interrupts import HeldInterrupt as _HeldInterrupt
from jaxfix.ground.interrupts import hold_interrupts as _hold_interrupts
from jaxfix.settings.options import Options
from jaxfix.settings.table import SettingError
from jaxfix.settings.target_version import CONFIG, TargetVersion
from jaxfix.sources.discovery import discover
from jaxfix.sources.file_io import ReadError, announced_writes, read_regular, write_fix
from jaxfix.workflows.git import GitError
from jaxfix.workflows.git import git as _git
from jaxfix.workflows.git import git_bytes as _git_bytes
from jaxfix.workflows.migrate_journal import NAME as JOURNAL
from jaxfix.workflows.migrate_journal import Journal, digest, read_journal
from jaxfix.workflows.migrate_report import RepoReport, Status, VerifyResult
from jaxfix.workflows.process import run_command
from jaxfix.workflows.repair import RepairReport, RepairSettings, repair
from jaxfix.write.diffs import unified_diff
from jaxfix.write.safe_write import WriteError, replace_source

DEFAULT_BRANCH = "jaxfix/migrate"
RECOVERED = (
    "a killed jaxfix run's unfinished edits were found (its journal in the git directory) "
    "and put back before this run"
)
_UNCOMMITTED = "has uncommitted changes"
_JOURNALED_SIZE = 1 << 30  # a file being compared with the journal's hashes
_TAIL_LINES = 40  # of a failed --verify's output
_TAIL_BYTES = 64 * 1024
_LOG_BYTES = 1 << 20  # of --verify's output, for the repository's log
# Files git keeps in its directory while an operation waits for the user.
_IN_PROGRESS = (
    ("MERGE_HEAD", "a merge"),
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase or git am"),
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
    ("BISECT_LOG", "a bisect"),
)


@dataclass(frozen=True)
class MigrateOptions:
    """Everything one repository's migration needs.

    `settings` are the command-line values of `jaxfix.settings.table.SETTINGS` (by name); each
    repository's own config fills in the rest.
    """

    branch: str = DEFAULT_BRANCH
    force_branch: bool = False
    verify: str | None = None
    verify_timeout: float = 600.0
    repair: bool = (
        False  # run the repair loop with the verify command (jaxfix.workflows.repair)
    )
    max_rounds: int = 5
    message: str | None = None
    dry_run: bool = False
    settings: tuple[tuple[str, Any], ...] = ()


def migrate_repo(
    location: str | os.PathLike[str], options: MigrateOptions
) -> tuple[RepoReport, bytes | None]:
    """Migrate one repository; the patch is `git format-patch` output once committed, the
    would-be unified diff with `dry_run`, else None.

    Ctrl-C lands only between files, during verify, or just before the commit: the work tree is
    then reset to the starting commit and KeyboardInterrupt raised. Any other failure becomes a
    `failed` report, never an exception.
    """
    started = time.monotonic()
    repo = Path(os.path.realpath(location))
    entry = RepoReport(
        repo=str(repo), name=repo.name, status=Status.SKIPPED, dry_run=options.dry_run
    )
    with _hold_interrupts() as guard:
        entry, patch = _migrate(repo, options, entry, guard)
    return replace(entry, duration=round(time.monotonic() - started, 3)), patch


def _in_repository(target: TargetVersion, repo: Path) -> str:
    """The target version as the report says it: a config file named inside its repository, so
    the report and the commit do not depend on where the scratch clone was."""
    if target.kind == CONFIG and Path(target.origin).is_absolute():
        try:
            target = replace(
                target, origin=Path(target.origin).relative_to(repo).as_posix()
            )
        except ValueError:
            pass
    return target.describe()


def _migrate(
    repo: Path, options: MigrateOptions, entry: RepoReport, guard: _HeldInterrupt
) -> tuple[RepoReport, bytes | None]:
    try:
        refusal = _refusal(repo, options)
        if refusal == _UNCOMMITTED:  # a killed run's own edits are put back
            refusal = _put_back_unfinished(repo, options.dry_run)
            if refusal is None:
                entry = replace(entry, notes=(*entry.notes, RECOVERED))
            refusal = refusal or _refusal(repo, options)
        if refusal == _UNCOMMITTED:
            refusal = f"{_UNCOMMITTED} ({_dirty_files(repo)})"
        refusal = refusal or _no_identity(repo)
        if refusal:
            return replace(entry, reason=refusal), None
        base = _git(repo, "rev-parse", "HEAD").strip()
        entry = replace(entry, base=base)
        # Callers are looked for among the files migrated (tracked ones), not the whole tree.
        run = build_run([repo], dict(options.settings), whole_project=False)
        assert run.target is not None  # build_run reads it
        entry = replace(entry, target_jax=_in_repository(run.target, repo))
        files = _tracked_python_files(repo, run.options)
        hidden = _hidden_from_status(repo, files)
    except (GitError, SettingError, OSError) as error:
        return replace(entry, status=Status.FAILED, reason=str(error)), None
    if hidden:
        return replace(
            entry,
            reason=(
                f"{len(hidden)} file{'s' if len(hidden) != 1 else ''} to check {'are' if len(hidden) != 1 else 'is'} marked "
                f"assume-unchanged or skip-worktree, so git status cannot show their local edits ({', '.join(hidden[:5])}"
                f"{', ...' if len(hidden) > 5 else ''}); clear the marks (git update-index --no-assume-unchanged / "
                "--no-skip-worktree) to migrate it"
            ),
        ), None
    guard.check()
    if options.dry_run:
        results = run_files(
            run.scoped(files),
            files,
            write=False,
            jobs=1,
            on_done=lambda _: guard.check(),
        )
        changed = [r for r in results if r.fixed is not None and r.error is None]
        entry = _with_results(entry, repo, results, changed)
        diff = b"".join(
            unified_diff(path, r.source, r.fixed)
            for path, r in zip(entry.files_changed, changed)
        )
        return (
            replace(entry, status=Status.CHANGED)
            if changed
            else _nothing_written(entry, results)
        ), diff or None
    try:
        journal = Journal(_journal_path(repo), repo, base)
    except (GitError, OSError) as error:
        reason = f"cannot write jaxfix's journal in the git directory: {getattr(error, 'strerror', None) or error}"
        return replace(entry, status=Status.FAILED, reason=reason), None
    written: list[FileResult] = []
    try:
        with announced_writes(journal.record):
            entry, patch = _fix_verify_commit(
                repo, base, files, run, options, entry, guard, written
            )
    except (GitError, OSError) as error:
        entry, patch = replace(entry, status=Status.FAILED, reason=str(error)), None
    except Exception as error:  # noqa: BLE001 - one repository's bug must not stop the fleet
        entry, patch = (
            replace(
                entry,
                status=Status.FAILED,
                reason=f"internal error: {type(error).__name__}: {error}",
            ),
            None,
        )
    except BaseException:
        problem = _restore(repo, written, unaccounted=files)
        journal.close(finished=not problem)
        if problem:
            raise KeyboardInterrupt(f"{repo}: {problem}") from None
        raise
    problem = _restore(repo, written)
    # With a problem, edits are left as they are: the journal stays for a later run to compare.
    journal.close(finished=not problem)
    if problem:
        entry = replace(entry, status=Status.FAILED, reason=problem)
    return entry, patch


def _journal_path(repo: Path) -> Path:
    return repo / _git(repo, "rev-parse", "--git-path", JOURNAL).strip()


def _put_back_unfinished(repo: Path, dry_run: bool) -> str | None:
    """Uncommitted changes that are exactly the unfinished edits of a killed run (its journal
    names every changed file, each holding what the run found there or a fix it wrote) are put
    back to HEAD: None. Otherwise why the repository is refused; nobody's edit is discarded."""
    path = _journal_path(repo)
    unfinished = read_journal(path)
    if unfinished is None:
        return _UNCOMMITTED
    if isinstance(unfinished, str):
        return f"{_UNCOMMITTED} ({unfinished})"
    if unfinished.base != _git(repo, "rev-parse", "HEAD").strip():
        return (
            f"{_UNCOMMITTED} (the journal of a killed jaxfix run is of commit {unfinished.base[:12]}, "
            "not HEAD: left as they are)"
        )
    status = _git_bytes(
        repo,
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=no",
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    names = []
    for item in status.split(b"\0"):
        if not item:
            continue
        name = os.fsdecode(item[3:])
        if item[:2] != b" M":  # staged, deleted, renamed: jaxfix only rewrites files
            return f"{_UNCOMMITTED} ({name} is not only rewritten: someone's change, left as it is)"
        if name not in unfinished.contents:
            return f"{_UNCOMMITTED} ({name} is not a file the killed jaxfix run wrote: someone's edit, left as it is)"
        try:
            content = read_regular(repo / name, _JOURNALED_SIZE, follow_symlinks=False)
        except ReadError as error:
            return f"{_UNCOMMITTED} ({name}: {error})"
        if digest(content) not in unfinished.contents[name]:
            return (
                f"{_UNCOMMITTED} ({name} holds neither what the killed jaxfix run found there "
                "nor what it wrote: someone's edit, left as it is)"
            )
        names.append(name)
    if dry_run:
        return f"{_UNCOMMITTED}: the unfinished edits of a killed jaxfix run (a run without --dry-run puts them back)"
    _checkout_from_head(repo, names)
    os.unlink(path)
    return None


def _dirty_files(repo: Path) -> str:
    """The tracked files with uncommitted changes, the first five by name."""
    status = _git_bytes(
        repo,
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=no",
        "--no-renames",
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )
    names = [os.fsdecode(item[3:]) for item in status.split(b"\0") if item]
    shown = ", ".join(names[:5]) + (
        f" and {len(names) - 5} more" if len(names) > 5 else ""
    )
    return shown or "?"


def _no_identity(repo: Path) -> str | None:
    """Why no commit could be made (no author or committer git accepts), found before any
    fix is made; None when git has both."""
    for who in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        try:
            _git(repo, "var", who)
        except GitError:
            return (
                "no git identity to commit with: set user.name and user.email (git config, or "
                "GIT_AUTHOR_NAME/EMAIL and GIT_COMMITTER_NAME/EMAIL where the workers run)"
            )
    return None


def _refusal(repo: Path, options: MigrateOptions) -> str | None:
    """Why this path must be left alone, or None. Reads only."""
    if not repo.is_dir():
        return "no such directory"
    try:
        top = _git(repo, "rev-parse", "--show-toplevel").strip()
    except GitError as error:
        return (
            "not a git work tree"
            if "not a git repository" in str(error)
            else f"not a git work tree ({error})"
        )
    if os.path.realpath(top) != str(repo):
        return f"not the top of a git work tree (it is inside {top})"
    try:
        _git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except GitError:
        return "the repository has no commits yet"
    for name, operation in _IN_PROGRESS:
        if (repo / _git(repo, "rev-parse", "--git-path", name).strip()).exists():
            return f"{operation} is in progress"
    if _git(
        repo,
        "status",
        "--porcelain",
        "--untracked-files=no",
        env={"GIT_OPTIONAL_LOCKS": "0"},
    ).strip():
        return _UNCOMMITTED
    try:  # also for --dry-run: it predicts the refusals the real run would make
        current = _git(repo, "symbolic-ref", "--quiet", "--short", "HEAD").strip()
    except GitError:
        current = None  # detached HEAD
    if current == options.branch:
        return f"branch '{options.branch}' is checked out"
    try:
        _git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{options.branch}")
    except GitError:
        return None
    if options.force_branch or _earlier_migration(repo, options.branch):
        return None  # an earlier migration's branch: _commit_branch compares the trees
    return _branch_exists(options.branch)


def _branch_exists(branch: str) -> str:
    return f"branch '{branch}' already exists (--force-branch replaces it)"


def _earlier_migration(repo: Path, branch: str) -> str | None:
    """The branch's commit, when it is one commit on HEAD: what a run stopped after committing
    (or an earlier run) left. The migration is then done again and kept only if it gives the
    same tree, as for a remote's branch (jaxfix/fleet/unit.py)."""
    try:
        tip, *parents = _git(
            repo, "rev-list", "--parents", "-n", "1", f"refs/heads/{branch}", "--"
        ).split()
    except GitError:
        return None  # no such branch
    head = _git(repo, "rev-parse", "HEAD").strip()
    return tip if parents == [head] else None


def _checkout_from_head(repo: Path, names: list[str]) -> None:
    """Put these files (repository-relative, any bytes in their names) back as HEAD has them."""
    _git(
        repo,
        "checkout",
        "HEAD",
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
        input=b"\0".join(os.fsencode(name) for name in names),
    )


def _hidden_from_status(repo: Path, files: list[Path]) -> list[str]:
    """Files the run would read whose local edits `git status` does not show (the refusal for
    uncommitted changes cannot see them): marked assume-unchanged (a lowercase tag in
    `git ls-files -v`) or skip-worktree (S)."""
    wanted = {path.relative_to(repo).as_posix() for path in files}
    hidden = []
    for line in _git(repo, "ls-files", "-v", "-z").split("\0"):
        tag, _, name = line.partition(" ")
        if name in wanted and (tag.islower() or tag == "S"):
            hidden.append(name)
    return sorted(hidden)


def _tracked_python_files(repo: Path, options: Options) -> list[Path]:
    """What the main command would discover, minus untracked files (never committed, never touched)."""
    tracked = {repo / name for name in _git(repo, "ls-files", "-z").split("\0") if name}
    return [
        path
        for path in discover([repo], options.exclude, options.all_includes).files
        if path in tracked
    ]


def _fix_verify_commit(
    repo: Path,
    base: str,
    files: list[Path],
    run: Run,
    options: MigrateOptions,
    entry: RepoReport,
    guard: _HeldInterrupt,
    written: list[FileResult],
) -> tuple[RepoReport, bytes | None]:
    """`written` receives each file jaxfix writes, as it is written: what `_restore` puts back."""

    def on_done(result: FileResult) -> None:
        if result.written:
            written.append(result)
        guard.check()

    if options.repair and options.verify:
        return _repair_commit(repo, base, files, run, options, entry, guard, written)
    # No result cache: it would leave a .jaxfix_cache/ directory in the user's repository.
    # One job: the caller runs repositories in parallel, and on_done is then a point between files.
    results = run_files(run.scoped(files), files, write=True, jobs=1, on_done=on_done)
    written[:] = [
        r for r in results if r.written
    ]  # a late check may have undone a write
    entry = _with_results(entry, repo, results, written)
    if not written:
        return _nothing_written(entry, results), None
    tree = _stage(repo, base, entry.files_changed)
    if options.verify:
        verify = _run_verify(repo, options, guard)
        entry = replace(entry, verify=verify)
        edited = _edited_while_verifying(entry, repo, written)
        if edited is not None:
            return edited, None
        if not verify.passed:
            outcome = (
                "timed out"
                if verify.exit_code is None
                else f"exited with {verify.exit_code}"
            )
            return replace(
                entry, status=Status.FAILED, reason=f"verify {outcome}; fixes discarded"
            ), None
    guard.check()
    return _commit_branch(repo, base, tree, entry, options)


def _repair_commit(
    repo: Path,
    base: str,
    files: list[Path],
    run: Run,
    options: MigrateOptions,
    entry: RepoReport,
    guard: _HeldInterrupt,
    written: list[FileResult],
) -> tuple[RepoReport, bytes | None]:
    """--repair: the loop of `jaxfix repair` with the verify command (its first run is the
    baseline, before any fix). Green after fixes: committed. Some errors fixed but still failing:
    `improved`, the patch returned and nothing committed. Nothing fixed: untouched."""
    assert options.verify is not None
    settings = RepairSettings(
        max_rounds=options.max_rounds, timeout=options.verify_timeout, cwd=repo
    )
    # Only tracked files, as without --repair: the run's frames are mapped onto these.
    try:
        report = repair(
            files,
            ("/bin/sh", "-c", options.verify),
            run,
            settings,
            on_round=lambda _: guard.check(),
        )
    except Exception:
        # What the loop wrote before failing is not known here: every tracked file that differs
        # from HEAD (the repository was clean when it started) is checked out again.
        _restore(repo, [], unaccounted=files)
        raise
    written[:] = _net_writes(report)
    static, reverified = _static_pass(
        repo, files, run, options, guard, passed=report.passed
    )
    written[:] = _merged_writes(written, static)

    def relative(path: Path | None) -> str:
        return (
            Path(os.path.realpath(path)).relative_to(repo).as_posix()
            if path is not None
            else "?"
        )

    def site(code: str, path: Path | None, line: int) -> str:
        return f"{code} {relative(path)}:{line}"

    seen = sorted(
        {site(r.code, r.path, r.line) for one in report.rounds for r in one.raised}
    )
    left = sorted({site(o.code, o.path, o.line) for o in report.left})
    first = report.rounds[0]
    if first.run.returncode is None:
        baseline = f"could not run: {first.run.problem}"
    elif first.run.returncode == 0 and not first.run.timed_out:
        baseline = "passed"
    elif first.failures and not first.raised:
        baseline = f"already failing before any fix, not with {codes_range()}: {_failure_text(first.failures)}"
    elif first.failures:
        baseline = f"failing with {len(first.raised)} {codes_range()} error(s), and already with others: {_failure_text(first.failures)}"
    else:
        baseline = (
            "failing"
            if not first.raised
            else f"failing with {codes_range()} error(s): {', '.join(seen[:3])}"
        )
    fixes = Counter(
        d.code
        for r in (*(r for one in report.rounds for r in one.results), *static)
        for d in r.diagnostics
        if d.applied
    )
    entry = replace(
        _with_results(entry, repo, written, written),
        fixes=tuple(sorted(fixes.items())),
        errors=tuple(seen),
        # counted as repair's summary counts them: the sites whose fix was written (one
        # fixed, then raised again, is also still failing)
        errors_fixed=len({site(o.code, o.path, o.line) for o in report.fixed}),
        baseline=baseline,
        left=tuple(
            f"{relative(o.path)}:{o.line}: {o.code} {o.detail}" for o in report.left
        ),
    )
    last = report.rounds[-1].run
    verify = reverified or VerifyResult(
        options.verify,
        report.passed,
        None if last.timed_out else last.returncode,
        "" if report.passed else last.output_tail,
    )
    entry = replace(entry, verify=verify)
    edited = _edited_while_verifying(entry, repo, written)
    if edited is not None:
        return edited, None
    still = [
        *left,
        *(
            f"{f.exception}" + (f" in {f.test}" if f.test else "")
            for f in report.failures
        ),
    ]
    if not written:
        if report.passed:
            return replace(entry, status=Status.CLEAN), None
        return replace(
            entry,
            status=Status.FAILED,
            reason=f"verify {baseline}; nothing fixed: {report.reason}",
        ), None
    if not report.passed:
        patch = b"".join(
            unified_diff(relative(r.path), r.source, r.fixed)
            for r in written
            if r.source is not None and r.fixed is not None
        )
        return replace(
            entry,
            status=Status.IMPROVED,
            reason=(
                f"{entry.errors_fixed} of {len(seen)} errors fixed, still failing: {', '.join(still[:5]) or report.reason}"
                f"{', ...' if len(still) > 5 else ''}; the fixes are in the patch, nothing committed"
            ),
        ), patch
    tree = _stage(repo, base, entry.files_changed)
    guard.check()
    return _commit_branch(repo, base, tree, entry, options)


def _static_pass(
    repo: Path,
    files: list[Path],
    run: Run,
    options: MigrateOptions,
    guard: _HeldInterrupt,
    *,
    passed: bool,
) -> tuple[list[FileResult], VerifyResult | None]:
    """--repair also fixes what static reading sees (sites the verify runs never reached), as
    migrate without --repair does. When the loop left the command passing, it is run once more
    with these fixes: failing, they are undone (the loop's green tree is what is committed)."""
    results = run_files(run.scoped(files), files, write=True, jobs=1)
    static = [r for r in results if r.written]
    if not static or not passed:
        return static, None
    guard.check()
    verify = _run_verify(repo, options, guard)
    if verify.passed:
        return static, verify
    for result in static:  # back to what the loop left
        write_fix(replace(result, source=result.fixed, fixed=result.source))
    return [], None


def _merged_writes(
    loop: list[FileResult], static: list[FileResult]
) -> list[FileResult]:
    """Each file written, from what it was before the loop to what it is after both passes."""
    net = {r.path: r for r in loop}
    for result in static:
        first = net.get(result.path)
        net[result.path] = (
            result if first is None else replace(first, fixed=result.fixed)
        )
    return list(net.values())


def _net_writes(report: RepairReport) -> list[FileResult]:
    """Each file the loop wrote, from what it was before the first round to what it is after the last."""
    net: dict[Path, FileResult] = {}
    for one in report.rounds:
        for result in one.results:
            if result.written:
                first = net.get(result.path)
                net[result.path] = (
                    result if first is None else replace(first, fixed=result.fixed)
                )
    return list(net.values())


def _failure_text(failures: tuple[Failure, ...]) -> str:
    shown = [
        f"{f.exception}" + (f" in {f.test}" if f.test else "") for f in failures[:3]
    ]
    return ", ".join(shown) + (
        f" and {len(failures) - 3} more" if len(failures) > 3 else ""
    )


def _stage(repo: Path, base: str, paths: tuple[str, ...]) -> str:
    """The tree of `base` plus jaxfix's edits, built in a throw-away index (the user's stays as is)."""
    with tempfile.TemporaryDirectory(prefix="jaxfix-index-") as temp:
        env = {"GIT_INDEX_FILE": os.path.join(temp, "index")}
        _git(repo, "read-tree", base, env=env)
        _git(repo, "add", "--", *paths, env=env)
        return _git(repo, "write-tree", env=env).strip()


def _edited_while_verifying(
    entry: RepoReport, repo: Path, written: list[FileResult]
) -> RepoReport | None:
    """The failed entry when a file jaxfix wrote was edited while --verify ran: that edit is
    kept (`_restore` leaves it), and nothing is committed."""
    edited = _edited_since_written(repo, written)
    if not edited:
        return None
    return replace(
        entry,
        status=Status.FAILED,
        reason=(
            f"changed while --verify ran: {', '.join(edited)}; left as they are, nothing committed"
        ),
    )


def _edited_since_written(repo: Path, written: list[FileResult]) -> list[str]:
    """The files jaxfix wrote that no longer hold what it wrote."""
    edited = []
    for result in written:
        try:
            current = result.path.read_bytes()
        except OSError:
            current = None
        if current != result.fixed:
            edited.append(
                Path(os.path.realpath(result.path)).relative_to(repo).as_posix()
            )
    return edited


def _restore(
    repo: Path, written: list[FileResult], unaccounted: list[Path] | None = None
) -> str | None:
    """Put back the original of every file jaxfix wrote, and nothing else: a file someone edited
    since (the verify command, another process) keeps that edit. Never raises.

    After an exception, a file may have been written without being recorded: `unaccounted` files
    that differ from HEAD are then checked out from it.
    """
    problems = []
    recorded = {result.path for result in written}
    try:
        names = {
            path.relative_to(repo).as_posix()
            for path in unaccounted or ()
            if path not in recorded
        }
        differing = [
            name
            for name in _git(repo, "diff", "--name-only", "-z", "HEAD").split("\0")
            if name in names
        ]
        if differing:
            _checkout_from_head(repo, differing)
    except GitError as error:
        problems.append(str(error))
    for result in written:
        assert result.fixed is not None and result.source is not None
        name = Path(os.path.realpath(result.path)).relative_to(repo).as_posix()
        try:
            if result.path.read_bytes() != result.fixed:
                continue  # someone's edit since: theirs to keep
            replace_source(result.path, result.source, expected=result.fixed)
        except (OSError, WriteError) as error:
            problems.append(f"{name}: {getattr(error, 'strerror', None) or error}")
    if not problems:
        return None
    return (
        f"could not put back jaxfix's edits in {'; '.join(problems)} (left as they are)"
    )


def _run_verify(
    repo: Path, options: MigrateOptions, guard: _HeldInterrupt
) -> VerifyResult:
    """Run the command in its own process group, so a timeout or Ctrl-C stops all it started."""
    assert options.verify is not None
    with tempfile.TemporaryFile() as output:
        run = run_command(
            ("/bin/sh", "-c", options.verify),
            None,
            repo,
            options.verify_timeout,
            output,
            poll=guard.check,
            tail_lines=_TAIL_LINES,
            tail_bytes=_TAIL_BYTES,
        )
        size = output.seek(0, os.SEEK_END)
        output.seek(max(0, size - _LOG_BYTES))
        whole = output.read().decode("utf-8", "replace")
    if run.returncode == 0 and not run.timed_out:
        return VerifyResult(options.verify, True, 0, output=whole)
    if run.problem is not None:
        return VerifyResult(options.verify, False, None, run.problem, output=whole)
    if run.timed_out:
        tail = f"{run.output_tail}\n[jaxfix: killed after --verify-timeout {options.verify_timeout:g}s]"
        return VerifyResult(options.verify, False, None, tail, output=whole)
    return VerifyResult(
        options.verify, False, run.returncode, run.output_tail, output=whole
    )


def _with_results(
    entry: RepoReport, repo: Path, results: list[FileResult], changed: list[FileResult]
) -> RepoReport:
    def relative(path: Path) -> str:
        """Of the file itself: a symlink's target is what jaxfix wrote and git must stage."""
        return Path(os.path.realpath(path)).relative_to(repo).as_posix()

    fixes = Counter(d.code for r in changed for d in r.diagnostics if d.applied)
    return replace(
        entry,
        files_changed=tuple(relative(r.path) for r in changed),
        fixes=tuple(sorted(fixes.items())),
        left=tuple(
            f"{relative(r.path)}:{d.start}: {d.code} {d.message}"
            for r in results
            for d in r.remaining
        ),
        file_errors=tuple(f"{relative(r.path)}: {r.error}" for r in results if r.error),
    )


def _nothing_written(entry: RepoReport, results: list[FileResult]) -> RepoReport:
    """`clean` only when nothing is left: `errors` when files went unchecked, `left` when
    findings remain, with the flag that would fix them."""
    if entry.file_errors:
        count = len(entry.file_errors)
        return replace(
            entry,
            status=Status.ERRORS,
            reason=f"{count} file{'s' if count != 1 else ''} not checked: {entry.file_errors[0]}",
        )
    if not entry.left:
        return replace(entry, status=Status.CLEAN)
    unsafe = sum(
        d.fix_safety is not None and d.fix_safety is not Safety.SAFE
        for r in results
        for d in r.remaining
    )
    hint = (
        f"--unsafe-fixes would fix {unsafe} of them"
        if unsafe
        else "no fix jaxfix can make: each needs a person"
    )
    return replace(entry, status=Status.LEFT, reason=hint)


def _commit_branch(
    repo: Path, base: str, tree: str, entry: RepoReport, options: MigrateOptions
) -> tuple[RepoReport, bytes | None]:
    """Commit `tree` on `base` and point the branch at it: the migration happens here, in one
    ref update; everything before it is undone by _restore. An earlier migration's branch is
    kept when it holds the same tree, else the repository is skipped."""
    earlier = None if options.force_branch else _earlier_migration(repo, options.branch)
    if earlier is not None:
        if _git(repo, "rev-parse", f"{earlier}^{{tree}}").strip() != tree:
            return replace(
                entry, status=Status.SKIPPED, reason=_branch_exists(options.branch)
            ), None
        return replace(
            entry,
            status=Status.CHANGED,
            branch=options.branch,
            commit=earlier,
            reason="the branch already had this migration (an earlier run's); left as it was",
        ), _git_bytes(repo, "format-patch", "-1", "--stdout", earlier)
    message = options.message or _commit_message(entry)
    commit = _git(
        repo, "commit-tree", tree, "-p", base, "-F", "-", input=message.encode()
    ).strip()
    patch = _git_bytes(repo, "format-patch", "-1", "--stdout", commit)
    _git(
        repo,
        "branch",
        *(("--force",) if options.force_branch else ()),
        options.branch,
        commit,
    )
    return replace(
        entry, status=Status.CHANGED, branch=options.branch, commit=commit
    ), patch


def _commit_message(entry: RepoReport) -> str:
    """Subject, then one line per rule with its count: reviewers see what changed and why."""
    lines = ["Fix JAX sharding code that recent JAX releases reject", ""]
    for code, count in entry.fixes:
        name = f" ({RULES[code].name})" if code in RULES else ""
        lines.append(f"- {code}{name}: {count} fix{'es' if count != 1 else ''}")
    files = len(entry.files_changed)
    lines += [
        "",
        f"{files} file{'s' if files != 1 else ''} changed by `jaxfix migrate` (jaxfix {__version__}).",
    ]
    if entry.target_jax:
        lines.append(f"Checked against JAX {entry.target_jax}.")
    if entry.left:
        lines.append(
            f"{len(entry.left)} diagnostic{'s' if len(entry.left) != 1 else ''} left for a human: run `jaxfix --dry-run`."
        )
    return "\n".join(lines) + "\n"
