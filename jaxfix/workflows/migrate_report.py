"""The report of one repository's migration: its status, the verify command's result, and the
entry `jaxfix migrate` writes to report.json (read back to resume a run)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Status(enum.Enum):
    CHANGED = "changed"  # committed on the branch (with --dry-run: would change)
    CLEAN = "clean"  # nothing to fix
    IMPROVED = "improved"  # --repair: some errors fixed, verify still fails; the patch is kept, nothing committed
    FAILED = "failed"  # verify failed, git or config error; the repository is as it was
    SKIPPED = "skipped"  # refused before anything ran (not a repo, dirty, mid-merge, branch exists)
    LEFT = "left"  # nothing written, findings remain (the reason names the flag that fixes them)
    ERRORS = "errors"  # nothing written, some files could not be checked
    # the run was stopped: put back untouched, or never started
    INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class VerifyResult:
    command: str
    passed: bool
    exit_code: int | None  # None when it timed out
    output_tail: str = ""  # kept only on failure
    # Its whole output (its last megabyte), passed or failed: for the repository's log in
    # --out, never in report.json.
    output: str = field(default="", compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "passed": self.passed,
            "exit_code": self.exit_code,
            "output_tail": self.output_tail,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VerifyResult:
        return cls(
            data["command"], data["passed"], data["exit_code"], data["output_tail"]
        )


@dataclass(frozen=True)
class RepoReport:
    """One repository's line in report.json; paths inside the repository are relative, POSIX."""

    repo: str  # absolute path, or the URL as listed: the key for resuming
    name: str
    status: Status
    dry_run: bool
    reason: str | None = None
    branch: str | None = None
    base: str | None = None
    commit: str | None = None
    files_changed: tuple[str, ...] = ()
    fixes: tuple[tuple[str, int], ...] = ()  # (rule code, count), sorted by code
    left: tuple[
        str, ...
    ] = ()  # "path:line:col: CODE message" for diagnostics without an applied fix
    file_errors: tuple[str, ...] = ()
    verify: VerifyResult | None = None
    duration: float = 0.0
    patch: str | None = None  # file name in the --out directory, set by the caller
    bundle: str | None = None  # likewise, for repositories given by URL
    pushed: bool = False  # the branch was pushed to the repository's URL (--push)
    target_jax: str | None = (
        None  # the JAX version checked against and where it came from
    )
    errors: tuple[
        str, ...
    ] = ()  # --repair: "CODE path:line" of every JAX001-JAX003 error the verify runs raised
    errors_fixed: int = 0  # of those, the ones whose fix was written (as repair counts)
    baseline: str | None = None  # --repair: how the verify command did before any fix
    options: dict[str, Any] | None = (
        None  # the run's options that shape results (fleet/resume.py)
    )
    finished: str | None = None  # when it was recorded, UTC, ISO 8601
    base_branch: str | None = (
        None  # a clone's branch, the one a pull request merges into
    )
    pull_request: str | None = None  # --open-pr: its web address
    pull_request_error: str | None = None  # --open-pr: why none could be opened
    log: str | None = None  # the repository's log, a file name under --out
    # What happened on the way: a killed run's edits put back, runs lost to a dead worker.
    notes: tuple[str, ...] = ()
    listed: bool = True  # False: recorded by an earlier run, not in the last run's list

    @property
    def done(self) -> bool:
        """Nothing more a re-run could do without --rerun."""
        return self.status in (Status.CHANGED, Status.CLEAN, Status.LEFT)

    @property
    def needs_attention(self) -> bool:
        return not self.done or bool(
            self.left or self.file_errors or self.pull_request_error
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "name": self.name,
            "status": self.status.value,
            "dry_run": self.dry_run,
            "reason": self.reason,
            "branch": self.branch,
            "base": self.base,
            "commit": self.commit,
            "files_changed": list(self.files_changed),
            "fixes": dict(self.fixes),
            "diagnostics_left": len(self.left),
            "left": list(self.left),
            "file_errors": list(self.file_errors),
            "verify": self.verify.to_json() if self.verify else None,
            "duration": self.duration,
            "patch": self.patch,
            "bundle": self.bundle,
            "pushed": self.pushed,
            "target_jax": self.target_jax,
            "errors": list(self.errors),
            "errors_fixed": self.errors_fixed,
            "baseline": self.baseline,
            "options": self.options,
            "finished": self.finished,
            "base_branch": self.base_branch,
            "pull_request": self.pull_request,
            "pull_request_error": self.pull_request_error,
            "log": self.log,
            "notes": list(self.notes),
            "listed": self.listed,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RepoReport:
        return cls(
            repo=data["repo"],
            name=data["name"],
            status=Status(data["status"]),
            dry_run=data["dry_run"],
            reason=data["reason"],
            branch=data["branch"],
            base=data["base"],
            commit=data["commit"],
            files_changed=tuple(data["files_changed"]),
            fixes=tuple(sorted(data["fixes"].items())),
            left=tuple(data["left"]),
            file_errors=tuple(data["file_errors"]),
            verify=VerifyResult.from_json(data["verify"]) if data["verify"] else None,
            duration=data["duration"],
            patch=data["patch"],
            bundle=data.get("bundle"),
            pushed=data.get("pushed", False),  # absent from reports written before URLs
            target_jax=data.get(
                "target_jax"
            ),  # absent from reports written before the target version
            errors=tuple(data.get("errors", ())),
            errors_fixed=data.get("errors_fixed", 0),
            baseline=data.get("baseline"),
            options=data.get("options"),  # absent from reports written before options
            finished=data.get("finished"),
            base_branch=data.get("base_branch"),  # absent before --open-pr
            pull_request=data.get("pull_request"),
            pull_request_error=data.get("pull_request_error"),
            log=data.get("log"),
            notes=tuple(data.get("notes", ())),
            listed=data.get("listed", True),
        )
