"""Which mode the preview flags make, as ruff and black combine them."""

from __future__ import annotations

import click


def run_mode(*, dry_run: bool, check: bool, diff: bool) -> str:
    """`fix`, `check`, `dry-run` or `diff`. `--check --diff` is `--diff` (ruff format's and
    black's `--check --diff`: the diff, exit 1 when something would change), and `--check
    --dry-run` is `--dry-run` likewise; `--dry-run --diff` asks for two previews of one change,
    one for people and one for `git apply`, so it is a usage error."""
    if dry_run and diff:
        raise click.UsageError(
            "--dry-run and --diff are two previews (for people, for git apply): give one"
        )
    return "diff" if diff else "dry-run" if dry_run else "check" if check else "fix"
