"""git, run for jaxfix's workflows (migrate, fleet): without a shell, never prompting, pathspecs
literal, in a session of its own; a failure is a `GitError` with git's reason on one line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class GitError(Exception):
    pass


def git_bytes(
    repo: Path,
    *args: str,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
) -> bytes:
    """Run git to completion. Its own session keeps a terminal Ctrl-C from killing it half-way."""
    completed = subprocess.run(
        ["git", *args],
        cwd=repo,
        input=input,
        capture_output=True,
        start_new_session=True,
        check=False,
        env={
            **os.environ,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_LITERAL_PATHSPECS": "1",
            **(env or {}),
        },
    )
    if completed.returncode != 0:
        raise GitError(
            f"git {args[0]}: {git_reason(completed.stderr) or f'exit status {completed.returncode}'}"
        )
    return completed.stdout


# Lines of git's stderr that say nothing about this failure (ssh's advice, hints, the push's URL).
_GIT_BOILERPLATE = (
    "hint:",
    "To ",
    "Please make sure you have the correct access rights",
    "and the repository exists.",
)
_GIT_REASON = 500  # characters


def git_reason(stderr: bytes) -> str:
    """git's reason on one line: every line that says something (ssh's "Could not resolve hostname",
    a pre-receive hook's `remote:` lines, the `fatal:`), not only the last one."""
    lines = (line.strip() for line in os.fsdecode(stderr).splitlines())
    kept = [
        line.removeprefix("fatal: ").removeprefix("error: ")
        for line in lines
        if line and not line.startswith(_GIT_BOILERPLATE)
    ]
    reason = "; ".join(dict.fromkeys(kept))
    return reason if len(reason) <= _GIT_REASON else reason[:_GIT_REASON] + "..."


def git(
    repo: Path,
    *args: str,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
) -> str:
    return os.fsdecode(git_bytes(repo, *args, env=env, input=input))
