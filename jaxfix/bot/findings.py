"""jaxfix's suggestions for the checkout, from the CLI itself (`--format github-suggestions`).

The bot runs the same command a person would, in a subprocess, so what it posts is exactly
what `jaxfix --check --format github-suggestions` prints for the pull request's lines.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from jaxfix.bot.rest import mismatch
from jaxfix.ground.bounded_data import load_json

MARKER = "<!-- jaxfix -->"  # ends every inline comment the bot writes
# A suggestion as `--format github-suggestions` prints it (what the bot reads of it).
_SUGGESTION = {
    "path": str,
    "line": int,
    "side": (str, None),
    "start_line": (int, None),
    "start_side": (str, None),
    "body": str,
}


@dataclass(frozen=True)
class Findings:
    comments: tuple[
        dict, ...
    ]  # GitHub review comments: path, line, side, [start_line, start_side], body
    exit_code: int  # jaxfix's: 0 clean, 1 findings, 2 errors
    errors: tuple[str, ...]  # jaxfix's error lines (stderr), for the review's summary


def _evidence_flag(path: Path) -> str:
    """A recorded evidence file (JSON lines) or a plain log of tracebacks."""
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip()
    return "--evidence" if head.startswith(b"{") else "--from-log"


def jaxfix_command(
    paths: list[str],
    *,
    base: str | None,
    unsafe_fixes: bool,
    target_version: str | None,
    evidence: Path | None,
) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "jaxfix",
        "--check",
        "--format",
        "github-suggestions",
        "--no-cache",
    ]
    if base:
        command += ["--diff-base", base]
    if unsafe_fixes:
        command.append("--unsafe-fixes")
    if target_version:
        command += ["--target-version", target_version]
    if evidence is not None:
        command += [_evidence_flag(evidence), str(evidence)]
    return [*command, "--", *paths] if paths else command


def run_jaxfix(command: list[str], cwd: Path) -> Findings:
    done = subprocess.run(command, cwd=cwd, capture_output=True)
    errors = tuple(
        line
        for line in done.stderr.decode("utf-8", "replace").splitlines()
        if ": error: " in line or line.startswith(("Error", "Usage"))
    )
    if done.returncode not in (0, 1, 2):
        raise RuntimeError(
            f"jaxfix exited with {done.returncode}: {' '.join(errors) or done.stderr.decode('utf-8', 'replace')[-300:]}"
        )
    try:  # nothing on stdout but for an error: the suggestions went somewhere else
        items = load_json(done.stdout or (b"[]" if done.returncode == 2 else b""))
    except ValueError:
        items = None
    if not isinstance(items, list):
        raise RuntimeError(
            f"jaxfix printed no suggestions (exit {done.returncode}): {' '.join(errors)[:300]}"
        )
    problem = mismatch(items, [_SUGGESTION], "suggestions")
    if problem:
        raise RuntimeError(f"jaxfix's suggestions have an unexpected shape: {problem}")
    comments = tuple({**item, "body": f"{item['body']}\n\n{MARKER}"} for item in items)
    return Findings(comments, done.returncode, errors)


def failed(findings: Findings, fail_on: str) -> bool:
    """The action's `fail-on`: findings (any finding or error), errors (errors only), never."""
    if fail_on == "never":
        return False
    if fail_on == "errors":
        return findings.exit_code == 2
    return findings.exit_code != 0
