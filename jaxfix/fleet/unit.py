"""The unit of work every executor runs: one `RepoSource` in, one `Outcome` out, plain picklable values.

A work tree is migrated in place (`migrate_repo`). A URL is cloned shallowly into a scratch
directory on whichever machine runs the unit, migrated there, and only the report entry, the
patch and a git bundle of the migration commit come back; with `push`, the branch is also
pushed to the URL as the very last step, in one ref update that fails if anyone else moved it.
The scratch directory is removed whatever happens.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import time
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jaxfix.fleet.sources import RepoSource, branch_for
from jaxfix.workflows.git import GitError
from jaxfix.workflows.git import git as _git
from jaxfix.workflows.git import git_bytes as _git_bytes
from jaxfix.workflows.migrate import MigrateOptions, migrate_repo
from jaxfix.workflows.migrate_report import RepoReport, Status


@dataclass(frozen=True)
class Outcome:
    entry: RepoReport
    patch: bytes | None = None  # `git format-patch` of the migration commit
    bundle: bytes | None = None  # `git bundle` of it, for repositories given by URL


def retried(times: int) -> str:
    """The note of a repository whose earlier runs were lost with their worker."""
    return (
        f"its worker was lost {times} time{'s' if times != 1 else ''} (killed, or out of "
        "memory) before this run of it"
    )


def with_note(outcome: Outcome, note: str) -> Outcome:
    entry = outcome.entry
    return replace(outcome, entry=replace(entry, notes=(*entry.notes, note)))


def for_source(source: RepoSource, options: MigrateOptions) -> MigrateOptions:
    """The run's options as they apply to one repository: its own verify command, its branch
    (`--branch` with `{name}` in it)."""
    return replace(
        options,
        branch=branch_for(options.branch, source.name),
        verify=source.verify or options.verify,
    )


# This process's bound on clones and pushes (`--max-clones`), set by a local pool's initializer.
_network: Any = None


def bound_network(slots: Any) -> None:
    """A pool worker's initializer: `slots` (a semaphore shared by the pool) bounds its clones
    and pushes."""
    global _network
    _network = slots
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # idle workers ignore Ctrl-C


def migrate_source(
    source: RepoSource,
    options: MigrateOptions,
    push: bool = False,
    network: Any = None,
) -> Outcome:
    """Migrate one repository of the fleet; `push` applies to repositories given by URL.
    `network` (a semaphore: a Dask one, or this process's) bounds the clones and pushes running
    at a time across the fleet."""
    options = for_source(source, options)
    slot = network or _network or nullcontext()
    if source.url is None:
        forced = options.force_branch
        if (
            source.rebuild is not None
            and _branch_tip(source.key, options) == source.rebuild
        ):
            options = replace(
                options, force_branch=True
            )  # jaxfix's own, unchanged since
        if push:  # refused before any work, --dry-run included, as for a URL
            with slot:
                refusal = _origin_refusal(source, options, forced)
            if refusal is not None:
                return Outcome(refusal)
        entry, patch = migrate_repo(source.key, options)
        entry = replace(entry, name=source.name)  # unique in the run
        if push and entry.status is Status.CHANGED and not options.dry_run:
            replaceable = (None, entry.commit, source.rebuild)
            with slot:
                entry = _push_checkout(Path(source.key), entry, forced, replaceable)
        return Outcome(entry, patch)
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="jaxfix-clone-"))
    try:
        outcome = _migrate_clone(
            source,
            source.url,
            options,
            push,
            scratch,
            slot,  # --dry-run: never pushed
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return replace(
        outcome,
        entry=replace(
            outcome.entry,
            name=source.name,
            duration=round(time.monotonic() - started, 3),
        ),
    )


def _origin_refusal(
    source: RepoSource, options: MigrateOptions, forced: bool
) -> RepoReport | None:
    """Why a work tree's branch cannot go to its origin, found before any work: the branch is
    there and is neither the local branch (an earlier run's push) nor the commit jaxfix
    recorded making; or origin cannot be read."""
    entry = RepoReport(source.key, source.name, Status.SKIPPED, options.dry_run)
    repo = Path(source.key)
    try:
        tip = _remote_tip(repo, options.branch)
    except GitError as error:
        return replace(entry, status=Status.FAILED, reason=f"cannot push: {error}")
    if (
        tip is None
        or forced
        or tip in (source.rebuild, _branch_tip(source.key, options))
    ):
        return None
    return replace(
        entry,
        reason=f"branch '{options.branch}' already exists on origin (--force-branch replaces it)",
    )


def _push_checkout(
    repo: Path, entry: RepoReport, force: bool, replaceable: tuple[str | None, ...]
) -> RepoReport:
    """--push for a work tree: its branch to its `origin`, in one ref update that fails if
    anyone moved the remote's branch meanwhile. The remote's branch is replaced only when it is
    absent, already this commit, the one jaxfix recorded making, or with --force-branch."""
    assert entry.branch is not None and entry.commit is not None
    ref = f"refs/heads/{entry.branch}"
    try:
        current = _git(repo, "symbolic-ref", "--quiet", "--short", "HEAD").strip()
        entry = replace(entry, base_branch=current)  # what a pull request merges into
    except GitError:
        pass  # detached: the host's default branch
    try:
        tip = _remote_tip(repo, entry.branch)
        if tip == entry.commit:
            return replace(entry, pushed=True)
        if tip not in replaceable and not force:
            return replace(
                entry,
                status=Status.FAILED,
                reason=f"branch '{entry.branch}' already exists on origin (--force-branch replaces it); nothing pushed, the local branch is kept",
            )
        _git(
            repo,
            "push",
            "--quiet",
            f"--force-with-lease={ref}:{tip or ''}",
            "origin",
            f"{entry.commit}:{ref}",
        )
    except GitError as error:
        return replace(
            entry,
            status=Status.FAILED,
            reason=f"push refused, nothing pushed; the local branch is kept ({error})",
        )
    return replace(entry, pushed=True)


def origin_url(repo: str) -> str | None:
    """A work tree's `origin`, where --push sends its branch."""
    try:
        return _git(Path(repo), "remote", "get-url", "origin").strip() or None
    except GitError:
        return None


def _branch_tip(repo: str, options: MigrateOptions) -> str | None:
    try:
        return _git(
            Path(repo),
            "rev-parse",
            "--verify",
            "--quiet",
            f"refs/heads/{options.branch}",
        ).strip()
    except GitError:
        return None


def _migrate_clone(
    source: RepoSource,
    url: str,
    options: MigrateOptions,
    push: bool,
    scratch: Path,
    slot: Any,
) -> Outcome:
    entry = RepoReport(
        repo=source.key,
        name=source.name,
        status=Status.SKIPPED,
        dry_run=options.dry_run,
    )
    exists = f"branch '{options.branch}' already exists on the remote (--force-branch replaces it)"
    clone = scratch / source.name
    ref = ("--branch", source.ref) if source.ref else ()
    try:
        with slot:
            _git(
                scratch,
                "clone",
                "--quiet",
                "--depth=1",
                "--single-branch",
                "--no-tags",
                *ref,
                "--",
                url,
                str(clone),
            )
            cloned = _git(clone, "symbolic-ref", "--quiet", "--short", "HEAD").strip()
            remote_tip = _remote_tip(clone, options.branch) if push else None
            # Without --force-branch, the remote's branch is left alone unless it is this very migration,
            # pushed by an earlier run (e.g. one whose worker died before reporting): one commit on HEAD.
            earlier = remote_tip if remote_tip and not options.force_branch else None
            if earlier and _parents(clone, earlier) != [
                _git(clone, "rev-parse", "HEAD").strip()
            ]:
                return Outcome(replace(entry, reason=exists))
    except GitError as error:
        return Outcome(replace(entry, status=Status.FAILED, reason=str(error)))
    migrated, patch = migrate_repo(clone, options)
    entry = replace(migrated, repo=source.key, name=source.name, base_branch=cloned)
    if entry.status is not Status.CHANGED or options.dry_run:
        return Outcome(entry, patch)  # with --dry-run, the would-be diff
    base = entry.base
    assert base is not None
    try:
        if earlier:
            theirs, ours = _git(
                clone,
                "rev-parse",
                f"{earlier}^{{tree}}",
                f"refs/heads/{options.branch}^{{tree}}",
            ).split()
            if theirs != ours:
                return Outcome(
                    RepoReport(
                        source.key,
                        source.name,
                        Status.SKIPPED,
                        options.dry_run,
                        base=base,
                        reason=exists,
                    )
                )
            _git(clone, "branch", "--force", options.branch, earlier)
            patch = _git_bytes(clone, "format-patch", "-1", "--stdout", earlier)
            entry = replace(
                entry,
                commit=earlier,
                pushed=True,
                reason="the remote already had this migration on the branch; nothing pushed",
            )
        bundle = _bundle(clone, base, options.branch, scratch / "migration.bundle")
    except GitError as error:
        return Outcome(
            replace(entry, status=Status.FAILED, reason=f"after the commit: {error}"),
            patch,
        )
    if push and not entry.pushed:
        try:
            with slot:
                _git(
                    clone,
                    "push",
                    "--quiet",
                    f"--force-with-lease=refs/heads/{options.branch}:{remote_tip or ''}",
                    "origin",
                    f"refs/heads/{options.branch}:refs/heads/{options.branch}",
                )
        except GitError as error:
            return Outcome(
                replace(
                    entry,
                    status=Status.FAILED,
                    reason=f"push refused, nothing pushed ({error})",
                ),
                patch,
                bundle,
            )
        entry = replace(entry, pushed=True)
    return Outcome(entry, patch, bundle)


def _parents(clone: Path, commit: str) -> list[str]:
    """Read from the raw object: in a shallow clone, `commit^` does not see past the graft."""
    _git(clone, "fetch", "--quiet", "--depth=1", "origin", commit)
    header = _git(clone, "cat-file", "commit", commit).split("\n\n", 1)[0].splitlines()
    return [line.split()[1] for line in header if line.startswith("parent ")]


def _remote_tip(clone: Path, branch: str) -> str | None:
    """The commit the branch points at on the remote, or None if it does not exist there."""
    ref = f"refs/heads/{branch}"
    for line in _git(clone, "ls-remote", "origin", ref).splitlines():
        commit, _, name = line.partition("\t")
        if name == ref:
            return commit
    return None


def _bundle(clone: Path, base: str, branch: str, path: Path) -> bytes:
    """The migration commit alone; whoever has the base commit can `git fetch` it from the bundle."""
    _git_bytes(
        clone, "bundle", "create", "--quiet", str(path), f"{base}..refs/heads/{branch}"
    )
    return path.read_bytes()
