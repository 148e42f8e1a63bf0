"""Each repository's log in `--out/logs/`: what its run did, and its verify command's whole
output (its last megabyte), kept when it passed too. A text file for a person to read; the
report stays the record a resume reads."""

from __future__ import annotations

from jaxfix.workflows.migrate_report import RepoReport

FOLDER = "logs"


def render(entry: RepoReport) -> bytes:
    lines = [
        f"repository: {entry.repo}",
        f"status: {entry.status.value}" + (" (dry run)" if entry.dry_run else ""),
    ]
    lines += [f"reason: {entry.reason}"] if entry.reason else []
    lines += [f"note: {note}" for note in entry.notes]
    for label, value in (
        ("finished", entry.finished),
        ("base", entry.base),
        ("branch", entry.branch),
        ("commit", entry.commit),
        ("target JAX", entry.target_jax),
    ):
        if value:
            lines.append(f"{label}: {value}")
    lines += [f"changed: {name}" for name in entry.files_changed]
    lines += [f"fixed: {code} x{count}" for code, count in entry.fixes]
    lines += [f"left: {item}" for item in entry.left]
    lines += [f"not checked: {item}" for item in entry.file_errors]
    lines += [f"pushed: {entry.branch}"] if entry.pushed else []
    if entry.verify is not None:
        verify = entry.verify
        outcome = (
            "passed"
            if verify.passed
            else "timed out"
            if verify.exit_code is None
            else f"exited with {verify.exit_code}"
        )
        lines += [
            f"verify: {verify.command}: {outcome}",
            "--- verify output ---",
            (verify.output or verify.output_tail).rstrip("\n"),
            "--- end of verify output ---",
        ]
    lines.append(f"duration: {entry.duration:.1f}s")
    return ("\n".join(lines) + "\n").encode("utf-8", "replace")


def added(line: str) -> bytes:
    """A line the run adds to a log after the repository finished (its pull request)."""
    return (line.replace("\n", " ") + "\n").encode("utf-8", "replace")
