"""The real-world no-harm check: run jaxfix over real code, write nothing, and print what a
reviewer needs to find false positives and crashes.

    python scripts/no_harm.py PATH... [--unsafe-fixes] [--jax-version 0.10.2] [--jobs N]
                              [--host-devices N] [--time-limit SECONDS] [--exclude GLOB]...

The report goes to stdout (redirect it to a file): internal errors (jaxfix bugs), other files
in error, every proposed change as a unified diff with its diagnostics (per cell for a
notebook), diagnostics reported without a change, and a summary. Notebooks (`*.ipynb`) are
checked with the `.py` files, as jaxfix's own default `include` has it. Progress goes to stderr. It calls the engine directly
(jaxfix.check.runner.run_files with write=False), so it does not depend on any output format.
Exit code: 2 if jaxfix crashed on some file, 1 if it proposed changes or reported anything, else 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from jaxfix.check.prefilter import is_candidate
from jaxfix.check.registry import selected_rules
from jaxfix.check.run import Run
from jaxfix.check.runner import default_jobs, run_files
from jaxfix.ground.diagnostics import Diagnostic, FileResult
from jaxfix.ground.escaping import printable
from jaxfix.settings.config import load, project_roots
from jaxfix.settings.jax_version import installed_jax_version, parse_version
from jaxfix.settings.options import Options
from jaxfix.sources.discovery import discover
from jaxfix.sources.paths import display_path
from jaxfix.write.diffs import unified_diff_text

INTERNAL_ERROR = "internal error"
# Files per engine call: small enough to stop soon after the time limit, big enough to keep workers busy.
CHUNK_PER_JOB = 16


def _display(path: Path) -> str:
    """Escaped as jaxfix's own output is: the trees checked are other people's."""
    return printable(display_path(path))


def _diagnostic_line(path: Path, diagnostic: Diagnostic) -> str:
    fix = ""
    if diagnostic.fix_title:
        state = (
            "applied"
            if diagnostic.applied
            else f"not applied, {diagnostic.fix_safety.value if diagnostic.fix_safety else 'no'} fix"
        )
        fix = f" [{diagnostic.fix_title}; {state}]"
    return f"{_display(path)}:{diagnostic.start}: {diagnostic.code} {printable(diagnostic.message)}{fix}"  # `cell N:line:col` in a notebook


def _run(
    files: list[Path], run: Run, jobs: int, time_limit: float | None
) -> tuple[list[FileResult], int]:
    """Results for the files reached before the time limit, and how many were not reached."""
    started = time.monotonic()
    results: list[FileResult] = []
    chunk = CHUNK_PER_JOB * jobs
    run = run.scoped(files)  # callers are looked for in the whole tree, as one run does
    for start in range(0, len(files), chunk):
        if time_limit is not None and time.monotonic() - started > time_limit:
            return results, len(files) - start
        results += run_files(run, files[start : start + chunk], write=False, jobs=jobs)
        print(
            f"no-harm: {len(results)}/{len(files)} files, {time.monotonic() - started:.0f}s",
            file=sys.stderr,
        )
    return results, 0


def _candidates(results: list[FileResult], options: Options) -> int:
    """How many processed files pass the byte prefilter (the files jaxfix parses)."""
    rules = selected_rules(options)
    return sum(
        1 for r in results if r.source is not None and is_candidate(r.source, rules)
    )


def _report(
    results: list[FileResult],
    not_reached: int,
    discovered: int,
    candidates: int,
    seconds: float,
) -> int:
    crashes = [r for r in results if r.error and r.error.startswith(INTERNAL_ERROR)]
    failed = [r for r in results if r.error and not r.error.startswith(INTERNAL_ERROR)]
    changed = [r for r in results if r.fixed is not None and not r.error]
    report_only = [
        (r.path, d)
        for r in results
        if not r.error
        for d in r.diagnostics
        if not d.applied
    ]

    print(f"# Internal errors ({len(crashes)})")
    for r in crashes:
        print(f"{_display(r.path)}: {printable(r.error)}")
    print(f"\n# Files in error ({len(failed)})")
    for r in failed:
        where = f":{r.error_location}" if r.error_location else ""
        print(f"{_display(r.path)}{where}: {printable(r.error)}")
    print(f"\n# Proposed changes ({len(changed)} files)")
    for r in changed:
        print()
        for d in r.diagnostics:
            print(_diagnostic_line(r.path, d))
        assert r.source is not None and r.fixed is not None
        # a notebook's: the cells that change, not the JSON document
        sys.stdout.write(unified_diff_text(_display(r.path), r.source, r.fixed))
    print(f"\n# Reported without a change ({len(report_only)})")
    for path, d in report_only:
        print(_diagnostic_line(path, d))

    codes = Counter(d.code for r in results if not r.error for d in r.diagnostics)
    applied = Counter(
        d.code for r in results if not r.error for d in r.diagnostics if d.applied
    )
    print("\n# Summary")
    print(
        f"files discovered: {discovered}; processed: {len(results)}; not reached (time limit): {not_reached}"
    )
    print(f"candidates (pass the prefilter, so parsed): {candidates}")
    print(
        f"changed: {len(changed)}; internal errors: {len(crashes)}; other errors: {len(failed)}; seconds: {seconds:.0f}"
    )
    for code in sorted(codes):
        print(f"{code}: {codes[code]} reported, {applied[code]} with a fix applied")
    if crashes:
        return 2
    return 1 if changed or codes else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument(
        "--unsafe-fixes", action="store_true", help="also propose unsafe fixes"
    )
    parser.add_argument(
        "--jax-version",
        help="JAX version the code targets (default: the installed jax)",
    )
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument(
        "--host-devices",
        type=int,
        help="the device count the checked code sees where it runs (jaxfix's --host-devices)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        help="stop starting new files after this many seconds",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        help="glob of paths to skip (repeatable)",
    )
    args = parser.parse_args(argv)

    options = Options(
        unsafe_fixes=args.unsafe_fixes,
        jax_version=parse_version(args.jax_version)
        if args.jax_version
        else installed_jax_version(),
        exclude=tuple(args.exclude),
        host_devices=args.host_devices,
    )
    # imports of the tree's own modules are followed from where the CLI would follow them
    roots = project_roots(load(None, args.paths), args.paths)
    started = time.monotonic()
    found = discover(args.paths, options.exclude)
    for path, message in found.errors:
        print(f"no-harm: {_display(path)}: {message}", file=sys.stderr)
    results, not_reached = _run(
        found.files, Run(options, roots=roots), max(1, args.jobs), args.time_limit
    )
    return _report(
        results,
        not_reached,
        len(found.files),
        _candidates(results, options),
        time.monotonic() - started,
    )


if __name__ == "__main__":
    sys.exit(main())
