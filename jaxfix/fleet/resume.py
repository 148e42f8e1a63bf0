"""Whether a repository report.json lists as done is still done for this run.

A recorded result counts only when it was made with the options that shape results (the
settings, branch, verify command, repair, message; not where output or caches go) and, for a
work tree, on the commit it still has checked out, with the migration still on its branch
(deleted, reset or rewritten: it runs again). Otherwise the repository runs again; its
branch is rebuilt when it is still exactly the commit jaxfix recorded making (nobody moved it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jaxfix.fleet.sources import RepoSource
from jaxfix.workflows.git import GitError
from jaxfix.workflows.git import git as _git
from jaxfix.workflows.migrate import MigrateOptions, RepoReport, Status

_COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")

# Settings that change where things go, not what a repository's migration is.
_NO_EFFECT = frozenset({"output_file", "cache_dir"})


def result_options(options: MigrateOptions) -> dict[str, Any]:
    """The options a repository's result depends on, as flags, in JSON's own form."""
    values: dict[str, Any] = {
        f"--{name.replace('_', '-')}": value
        for name, value in options.settings
        if name.replace("-", "_") not in _NO_EFFECT
    }
    values.update(
        {
            "--branch": options.branch,
            "--verify": options.verify,
            "--repair": options.repair,
            "--max-rounds": options.max_rounds if options.repair else None,
            "--message": options.message,
        }
    )
    kept = {k: v for k, v in sorted(values.items()) if v not in (None, False, (), [])}
    return json.loads(
        json.dumps(kept)
    )  # tuples become lists, as report.json reads back


def why_redo(
    entry: RepoReport, source: RepoSource, options: dict[str, Any]
) -> str | None:
    """Why a repository recorded as done must run again; None when it is still done."""
    if entry.options is not None and entry.options != options:
        names = sorted(
            name
            for name in set(entry.options) | set(options)
            if entry.options.get(name) != options.get(name)
        )
        return f"options differ ({', '.join(names)})"
    if source.remote or entry.base is None:
        return None
    try:
        head = _git(Path(source.key), "rev-parse", "HEAD").strip()
    except GitError:
        return "no longer a repository with a commit checked out"
    if head != entry.base:
        return f"its base moved ({entry.base[:12]} -> {head[:12]})"
    if entry.status is Status.CHANGED and entry.branch and entry.commit:
        return _branch_lost(Path(source.key), entry.branch, entry.commit)
    return None


def _branch_lost(repo: Path, branch: str, commit: str) -> str | None:
    """Why the recorded migration commit is no longer on its branch (deleted, reset or
    rewritten); None while the branch holds it, with or without someone's commits on top."""
    if not _COMMIT_ID.fullmatch(
        commit
    ):  # report.json is a file anyone may have written
        return "the recorded migration commit is not a commit id"
    try:
        tip = _git(repo, "rev-parse", "--verify", "-q", f"refs/heads/{branch}").strip()
    except GitError:
        return f"its branch '{branch}' is gone"
    if tip == commit:
        return None
    try:
        _git(repo, "merge-base", "--is-ancestor", commit, tip)
    except GitError:
        return f"its branch '{branch}' no longer holds the migration ({commit[:12]})"
    return None


def own_branch(entry: RepoReport) -> str | None:
    """The commit the branch may be replaced from: the one jaxfix recorded making."""
    return entry.commit if entry.status is Status.CHANGED else None
