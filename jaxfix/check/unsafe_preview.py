"""What `--dry-run` without `--unsafe-fixes` shows as not applied: the file with its unsafe
fixes too (jaxfix/cli/unsafe_preview.py prints it). Derived where the file is checked, a worker
process for a run that has them, with the run's shared engine: a second check of the file,
with unsafe fixes on, only for files whose findings have an unsafe fix left."""

from __future__ import annotations

from dataclasses import replace

from jaxfix.check.run import Run
from jaxfix.ground.diagnostics import FileResult, Safety


def wants_unsafe_preview(result: FileResult, run: Run) -> bool:
    """Whether the run shows `result`'s unsafe fixes as a preview: an unsafe fix left, the
    file read and checked."""
    return (
        run.previews_unsafe
        and not run.options.unsafe_fixes
        and result.error is None
        and result.source is not None
        and any(d.fix_safety is Safety.UNSAFE for d in result.remaining)
    )


def with_unsafe_preview(result: FileResult, run: Run) -> FileResult:
    """`result` with `unsafe_fixed`, the file with every fix, when the run wants it and the
    unsafe fixes change what the safe ones leave."""
    if not wants_unsafe_preview(result, run):
        return result
    from jaxfix.check.engine import check_file

    assert result.source is not None
    every = check_file(run.with_options(unsafe_fixes=True), result.path, result.source)
    base = result.fixed if result.fixed is not None else result.source
    if every.error or every.fixed is None or every.fixed == base:
        return result
    return replace(result, unsafe_fixed=every.fixed)
