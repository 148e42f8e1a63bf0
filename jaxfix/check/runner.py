"""Run the engine over many files, results in path order.

Most files need no parsing: reading them, the byte prefilter and the cache settle them in this
process, and libcst is imported only once some file must be parsed. The files that must are
parsed in worker processes when there is enough of them to pay for the pool (a file that kills
its worker becomes that file's error; see jaxfix/check/pool.py); the workers start as soon as that is
known, so their import of libcst overlaps the reading of the other files (a run that parses
nothing starts none; forked ones share the run's word index, built once before the first of
them, and one grown past `_WORKER_MAX_RESIDENT` is replaced by a fresh one). Fixes are written here. Nothing shown or written comes from the cache:
it holds no fixed code (jaxfix/cache/store.py), so a file that needs a fix is parsed on every run
that writes or shows fixed code (a run that does neither takes the fix's summary), and a forged
cache entry can hide or invent a diagnostic but never put code into a file, a diff or a
suggestion.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Container
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from jaxfix.cache.settled_files import current_signature
from jaxfix.check.prefilter import candidate_codes, is_candidate
from jaxfix.check.registry import RuleEntry
from jaxfix.check.run import Run
from jaxfix.check.unsafe_preview import wants_unsafe_preview, with_unsafe_preview
from jaxfix.evidence.facts import Evidence
from jaxfix.ground.diagnostics import FileResult
from jaxfix.sources.file_io import (
    read_source,
    undo_written,
    unreadable_reason,
    write_fix,
)
from jaxfix.sources.kinds import kind_of, source_of
from jaxfix.sources.source import Source, SourceError
from jaxfix.write.safe_write import LateCheck, confirm_writes

if TYPE_CHECKING:  # multiprocessing: imported only when workers start
    from jaxfix.check.pool import Workers

Lines = frozenset[int] | None
Found = tuple[Evidence, ...] | None
# The codes of the rules the prefilter found a file's code may fire on: the engine runs those
# (jaxfix/check/engine.py, `check_source`'s `candidates`) without testing them again.
Codes = tuple[str, ...]
# A file to parse, with what the run was told about it (its changed lines and its evidence)
# and the rules the prefilter passed.
Task = tuple[Path, bytes, Lines, Found, Codes]

# Below this much source to parse (LibCST with metadata costs roughly 40 ms of CPU per KB), the
# workers' start-up (fork, pickling, each importing libcst) costs about what they would save.
_PARALLEL_MIN_BYTES = 16 * 1024
# A worker holding more than this after a file is replaced by a fresh one: the modules it
# keeps parsed between files, and what its allocator does not give back after a module whose
# questions parsed much of the tree, would otherwise add up to several times one file's need.
# Replacements are forked by a fork server as small as the first workers (jaxfix/check/pool.py).
# (JAX tree, --select ALL, 2 workers, with the fork server: peak 188-211 MB at 150 MB, 188-207
# MB at 100 MB, 169 MB at 80 MB, 182 MB at 64 MB for ~10% more CPU than at 150 MB: one file's
# questions alone reach ~90 MB, jax/_src/test_util.py's.)
_WORKER_MAX_RESIDENT = 80 * 1024 * 1024
# Replaced files are held open until the run's writes are confirmed; at most this many at once.
_MAX_OPEN_LATE_CHECKS = 256


def default_jobs() -> int:
    return (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1)
    )


def _settle_cheaply(
    path: Path,
    run: Run,
    rules: tuple[RuleEntry, ...],
    facts: tuple[Lines, Found],
    *,
    check_syntax: bool = False,
) -> tuple[bytes, Codes] | FileResult:
    """The result if reading, the prefilter or the cache decides it, else the bytes to parse
    and the codes of the rules the prefilter passed (none for a file parsed for its evidence).
    `check_syntax`: a file the prefilter settles still gets its syntax errors reported. A
    file the prefilter settled in an earlier run and unchanged since is not read
    (jaxfix/cache/settled_files.py): its result has no source."""
    kind = kind_of(path)
    cache, (lines, evidence) = run.cache, facts
    settled = (
        cache.settled
        if cache is not None
        and not check_syntax
        and kind.settles_unread
        and evidence is None
        else None
    )
    if settled is not None and settled.holds(path):
        return FileResult(path, None)
    before = current_signature(path) if settled is not None else None
    source = read_source(path, run.options)
    if isinstance(source, FileResult):
        return source
    reason = unreadable_reason(source)
    if reason is not None:
        return FileResult(path, source, error=reason)
    kept = source_of(
        path, source
    )  # a tree without notebooks never imports their module
    problem = kept.problem()
    if problem is not None:
        return problem  # e.g. a malformed notebook: said even when nothing to check
    # Only a file the prefilter passed has an entry (for these bytes and settings): asked
    # first, a warm run needs no prefilter for it.
    cached = (
        cache.get(path, source, lines, summarized=not run.needs_fixed_code)
        if cache
        else None
    )
    # the cache holds no fixed code: a file whose unsafe fixes the run previews is checked
    if cached is not None and not wants_unsafe_preview(cached, run):
        if settled is not None:
            settled.forget(path)
        return cached
    codes: Codes = ()
    if kept.has_cells:  # its cells, as the engine would read them, once its JSON passed
        if is_candidate(source, rules):
            code = _code(kept)
            if isinstance(
                code, FileResult
            ):  # they cannot be read: said as the engine says it
                if cache:
                    cache.put(code, lines)
                return code
            codes = candidate_codes(code, rules)
    else:
        codes = candidate_codes(source, rules)
    if not codes and evidence is None:  # a log's site may not mention a mesh
        error = kept.syntax_error() if check_syntax else None
        if error is not None:
            return FileResult(path, source, error=error[0], error_location=error[1])
        if settled is not None:
            settled.add(path, before)
        return FileResult(path, source)
    if settled is not None:
        settled.forget(path)
    return source, codes


def _code(source: Source) -> bytes | FileResult:
    """A notebook's code cells, which the prefilter reads once its JSON passed (a word in an
    output or a markdown cell makes no candidate the engine would then not parse, its syntax
    unchecked); the file's error, as the engine gives it, when they cannot be read."""
    try:
        return source.code()
    except SourceError as error:
        return source.unreadable(error)


def _parse(task: Task, run: Run) -> FileResult:
    from jaxfix.check.engine import (
        check_file,  # imports libcst: only once a file needs it
    )

    path, source, lines, evidence, codes = task
    result = check_file(run, path, source, lines, evidence, codes)
    if run.cache:
        run.cache.put(result, lines)
    return with_unsafe_preview(result, run)


def _parse_task(task: Task, *, run: Run) -> FileResult:
    """A worker's file. A worker serves one run, checking (`Run.checking`) from its start: a
    forked one inherits the run, a spawned one gets it pickled without its engine; either
    makes the engine its files share from the run's roots and files."""
    return _parse(task, run)


def _share_with_workers(run: Run) -> None:
    """What each forked worker (and each fresh one replacing it) would otherwise make for
    itself, made once before the first fork: the engine's modules and the run's rules
    imported (every rule module, each defining its classes: a quarter of a second a worker,
    and a run on a large tree replaces its workers tens of times), and the run's engine with
    its word index (one more read of every file of the project). Paths travel as text both
    ways (jaxfix/check/sent_paths.py)."""
    from jaxfix.check import pool, sent_paths

    sent_paths.send_paths_as_text()
    run.share_summaries()
    if not pool.forks():  # a spawned worker gets the run without its engine
        return
    _import_engine()
    from jaxfix.check.engine import selected_rules

    selected_rules(run.options)
    run.engine(run.options.jax_version).project.index_words()
    gc.freeze()  # inherited unchanged: the workers' collections never touch it (Run.checking unfreezes)


def _import_engine() -> None:
    """A worker's first step, before its first file arrives."""
    import jaxfix.check.engine  # noqa: F401 - imports libcst


def _crashed(task: Task, how: str) -> FileResult:
    path, source, *_ = task
    return FileResult(
        path,
        source,
        error=f"the process parsing this file was {how}; file left untouched",
    )


def process_file(
    run: Run,
    path: Path,
    *,
    write: bool,
    facts: tuple[Lines, Found] = (None, None),
    check_syntax: bool = False,
    late_checks: list[LateCheck] | None = None,
) -> FileResult:
    """One file from start to end, in this process."""
    settled = _settle_cheaply(path, run, run.rules, facts, check_syntax=check_syntax)
    result = (
        settled
        if isinstance(settled, FileResult)
        else _parse((path, settled[0], *facts, settled[1]), run)
    )
    return write_fix(result, late_checks) if write else result


def _facts(
    path: Path,
    lines: dict[Path, frozenset[int]] | None,
    evidence: dict[Path, tuple[Evidence, ...]] | None,
) -> tuple[Lines, Found]:
    """What the run was told about `path`: its changed lines (None: not in changed-lines
    mode) and its evidence (None: not from a log), by its resolved path."""
    if lines is None and evidence is None:
        return None, None
    resolved = path.resolve()
    return (
        None if lines is None else lines.get(resolved, frozenset()),
        None if evidence is None else evidence.get(resolved, ()),
    )


def _with_changed_origins(
    lines: dict[Path, frozenset[int]], evidence: dict[Path, tuple[Evidence, ...]]
) -> dict[Path, frozenset[int]]:
    """In changed-lines mode, a line that raised counts as changed when the place its value is
    written (a recorded run's value site: a config entry, a constant) is on a changed line:
    the change there is what makes it raise."""
    found = dict(lines)
    for path, items in evidence.items():
        for item in items:
            site = item.value_site
            if (
                site is not None
                and not item.at_value
                and site.span[0] in lines.get(site.path.resolve(), frozenset())
            ):
                found[path] = found.get(path, frozenset()) | {item.line}
    return found


def run_files(
    run: Run,
    files: list[Path],
    *,
    write: bool,
    jobs: int,
    lines: dict[Path, frozenset[int]] | None = None,
    evidence: dict[Path, tuple[Evidence, ...]] | None = None,
    on_done: Callable[[FileResult], None] | None = None,
    check_syntax: Container[Path] = (),
    on_plan: Callable[[list[tuple[Path, int]]], None] | None = None,
) -> list[FileResult]:
    """`run` (scoped: its files are where the engine looks for a function's callers) over
    `files`. `lines`: changed-lines mode, resolved path -> the lines that may be reported and
    fixed; `evidence`: from a log, resolved path -> what it showed raised there (only those
    sites are checked). `check_syntax`: the files whose syntax errors are reported even when
    no rule applies. `on_plan`: told, once the cheap files are settled, which files will be
    parsed (and their sizes), in the order they are handed out: the real work, for progress
    reports."""
    if lines is not None and evidence:
        lines = _with_changed_origins(lines, evidence)
    results: list[FileResult] = []
    late_checks: list[LateCheck] = []
    undone: dict[Path, str] = {}

    def record(result: FileResult) -> None:
        results.append(result)
        if len(late_checks) >= _MAX_OPEN_LATE_CHECKS:
            undone.update(confirm_writes(late_checks))
        if on_done:
            on_done(result)

    try:
        with run.checking():
            _run(
                run,
                files,
                partial(_facts, lines=lines, evidence=evidence),
                write=write,
                jobs=jobs,
                record=record,
                late_checks=late_checks,
                check_syntax=check_syntax,
                on_plan=on_plan,
            )
    finally:
        undone.update(confirm_writes(late_checks))
        if run.cache is not None:
            run.cache.save_settled()
    results = undo_written(results, undone)
    if any(d.data_edits for r in results for d in r.diagnostics):
        from jaxfix.write.data_edits import refuse_unwritable

        # what a write would refuse is refused before a preview or a write, which then
        # show and do the same
        within = run.write_roots()
        results = refuse_unwritable(results, within)
        if write:
            from jaxfix.write.data_edits import write_data_edits

            results = write_data_edits(results, within)
    results.sort(key=lambda r: str(r.path))
    return results


def _run(
    run: Run,
    files: list[Path],
    facts: Callable[[Path], tuple[Lines, Found]],
    *,
    write: bool,
    jobs: int,
    record: Callable[[FileResult], None],
    late_checks: list[LateCheck],
    check_syntax: Container[Path],
    on_plan: Callable[[list[tuple[Path, int]]], None] | None,
) -> None:
    if jobs <= 1 and on_plan is None:
        for path in files:
            record(
                process_file(
                    run,
                    path,
                    write=write,
                    facts=facts(path),
                    check_syntax=path in check_syntax,
                    late_checks=late_checks,
                )
            )
        return
    finish = (
        partial(write_fix, late_checks=late_checks)
        if write
        else (lambda result: result)
    )
    rules = run.rules
    to_parse: list[Task] = []
    waiting_bytes = 0
    with ExitStack() as stack:
        workers: Workers[Task, FileResult] | None = None
        for path in files:
            known = facts(path)
            settled = _settle_cheaply(
                path, run, rules, known, check_syntax=path in check_syntax
            )
            if isinstance(settled, FileResult):
                record(finish(settled))
                continue
            to_parse.append((path, settled[0], *known, settled[1]))
            waiting_bytes += len(settled[0])
            if jobs > 1 and waiting_bytes >= _PARALLEL_MIN_BYTES:
                if workers is None:
                    from jaxfix.check import pool

                    _share_with_workers(run)
                    workers = stack.enter_context(
                        pool.Workers(
                            partial(_parse_task, run=run),
                            min(jobs, default_jobs()),
                            _crashed,
                            prepare=_import_engine,
                            max_resident=_WORKER_MAX_RESIDENT,
                        )
                    )
                workers.grow(len(to_parse))
        if workers is not None:
            to_parse.sort(
                key=lambda item: -len(item[1])
            )  # largest first: workers finish together
        if on_plan:
            on_plan([(path, len(source)) for path, source, *_ in to_parse])
        if workers is not None:
            for result in workers.run(to_parse):
                record(finish(result))
        else:
            for task in to_parse:
                record(finish(_parse(task, run)))
