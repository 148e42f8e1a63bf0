"""The analysis process: `python -m jaxfix.server.worker`, started and stopped by the server.

It imports the engine once, then answers one job at a time with a run built as the CLI builds
its own (jaxfix/check/run.py: config found from the file upward, the project from the workspace
folder, the result cache in the same place as the CLI's) and the engine's `check_source_of` of
the document's Source. The server kills it to stop an
analysis a newer version of the document has made useless, and starts another.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from jaxfix.check.run import Run, build_run
from jaxfix.ground.diagnostics import FileResult
from jaxfix.server.jobs import Answer, Check, Document, FixAll, FixOne, Hello, Job
from jaxfix.server.wire import receive, send
from jaxfix.settings.options import Options
from jaxfix.settings.table import SettingError
from jaxfix.sources.discovery import is_excluded
from jaxfix.sources.file_io import ReadError, read_regular

# The project's files (those the prefilter passes) a quick fix of another module checks, as
# the command line's run of the project would, for another fix of the place it changes; more:
# no edit of another module.
_MAX_CHECKED = 100


def _project(document: Document) -> tuple[Run, Path]:
    """The run a `jaxfix --check` of the workspace folder would use for this file (its config
    and jax pin found from the file, its project from the folder; no cache where the CLI
    would refuse its directory, nor outside the workspace folder: a library's file opened by
    go-to-definition gets none written beside it), and the folder."""
    path = Path(document.path)
    start = [Path(document.folder)] if document.folder else [path.parent]
    run = build_run(
        [path],
        {},
        project=start,
        cache=bool(document.folder),
        cache_within=Path(document.folder) if document.folder else None,
    )
    return run, start[0]


def _excluded(path: Path, root: Path, options: Options) -> bool:
    """As a walk from the workspace folder would exclude it (or `--stdin-filename` names it)."""
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    return any(
        is_excluded(p, options.exclude)
        for p in (shown, *shown.parents)
        if p != Path(".")
    )


def _on_disk(path: Path, source: bytes, options: Options) -> bool:
    try:
        return read_regular(path, options.max_file_size) == source
    except ReadError:
        return False


def answer(job: Job) -> Answer:
    from jaxfix.check.prefilter import is_candidate
    from jaxfix.check.registry import selected_rules

    document = job.document
    path, original = document.source.path, document.source.original
    try:
        run, root = _project(document)
    except SettingError as error:
        return Answer(None, failure=f"configuration error: {error}")
    options = run.options
    if _excluded(path, root, options):
        return Answer(FileResult(path, original), excluded=True)
    if len(original) > options.max_file_size:
        return Answer(
            FileResult(
                path,
                original,
                error=f"larger than max-file-size ({options.max_file_size} bytes)",
            )
        )
    if isinstance(job, Check) and not is_candidate(original, selected_rules(options)):
        return Answer(FileResult(path, original))
    # The callers of the document's functions are looked for in its project's files, as the
    # CLI does (issue 40: the project, not the paths given, is the scope).
    with run.scoped([path]).checking() as scoped:
        return _answer(job, path, scoped)


def _answer(job: Job, path: Path, run: Run) -> Answer:
    from jaxfix.check.engine import check_source_of

    source, cache = job.document.source, run.cache
    if isinstance(job, Check):
        cached = cache.get(path, source.original) if cache else None
        if cached is not None:
            return Answer(cached)
        result = check_source_of(run, source)
        if cache and _on_disk(
            path, source.original, run.options
        ):  # an unsaved buffer's result would only evict the file's entry
            cache.put(result)
        return Answer(result)
    if isinstance(job, FixOne):
        first, last = job.lines
        result = check_source_of(
            run.with_options(select=(job.code,), unsafe_fixes=job.unsafe),
            source,
            lines=frozenset(range(first, last + 1)),
        )
        if any(d.applied and d.data_edits for d in result.diagnostics):
            result = _as_the_project_run_leaves_it(job, result, run)
        return Answer(result)
    assert isinstance(job, FixAll)
    return Answer(check_source_of(run.with_options(unsafe_fixes=False), source))


def _as_the_project_run_leaves_it(
    job: FixOne, result: FileResult, run: Run
) -> FileResult:
    """A fix whose edit is of another module, refused where `jaxfix --unsafe-fixes .` from
    the workspace folder refuses it: beside another fix, of this file or of another file of
    the project (each checked as the command line checks it, the document as the editor
    holds it), that changes the same place another way; outside the project; and, as the
    editor's edits stay in it, outside the workspace folder (every edit, without one)."""
    from jaxfix.check.engine import check_file, check_source_of
    from jaxfix.check.prefilter import is_candidate
    from jaxfix.check.registry import selected_rules
    from jaxfix.write.data_edits import refuse_outside, refuse_unwritable
    from jaxfix.write.safe_write import real_roots

    document = job.document
    within = run.with_options(unsafe_fixes=job.unsafe)
    folder = real_roots([Path(document.folder)]) if document.folder else ()
    others = [
        p
        for p in run.scope
        if os.path.abspath(p) != os.path.abspath(document.source.path)
    ]
    rules = selected_rules(within.options)
    candidates = []
    for path in others:
        try:
            data = read_regular(path, within.options.max_file_size)
        except ReadError:
            continue  # the command line reports it, and it has no fix
        if is_candidate(data, rules):
            candidates.append((path, data))
    if len(candidates) > _MAX_CHECKED:
        checked = f"the {_MAX_CHECKED} files a quick fix checks for another fix of it"
        return refuse_outside([result], (), checked)[0]
    results = [result, check_source_of(within, document.source)]
    results += [check_file(within, path, data) for path, data in candidates]
    result = refuse_unwritable(results, run.write_roots())[0]
    return refuse_outside([result], folder, "the workspace folder")[0]


def _explain() -> dict[str, str]:
    from jaxfix.cli.rule_docs import explain_markdown
    from jaxfix.codemods import RULES

    return {code: explain_markdown(rule) for code, rule in RULES.items()}


def main() -> None:
    messages = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(
        sys.stderr.fileno(), sys.stdout.fileno()
    )  # whatever a library prints must not reach the pipe
    jobs = sys.stdin.buffer
    import jaxfix.check.engine  # noqa: F401 - before the first job arrives: libcst, the rules

    send(messages, Hello(_explain()))
    while True:
        try:
            number, job = receive(jobs)
        except EOFError:
            return
        try:
            reply = answer(job)
        except Exception as error:  # noqa: BLE001 - the server logs it; the next job still runs
            reply = Answer(
                None, failure=f"internal error: {type(error).__name__}: {error}"
            )
        send(messages, (number, reply))


if __name__ == "__main__":
    main()
