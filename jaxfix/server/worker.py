"""The analysis process: `python -m jaxfix.server.worker`, started and stopped by the server.

It imports the engine once, then answers one job at a time with the CLI's own functions (config
found from the file upward, the project roots from the workspace folder, the result cache in
the same place as the CLI's) and the engine's `process_file` of the document's Source. The server kills it to stop an
analysis a newer version of the document has made useless, and starts another.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

from jaxfix.cache.store import Cache, CacheDirError, cache_location
from jaxfix.check.dependencies import project_run
from jaxfix.ground.diagnostics import FileResult
from jaxfix.server.jobs import Answer, Check, Document, FixAll, FixOne, Hello, Job
from jaxfix.server.wire import receive, send
from jaxfix.settings.config import build_options, load, project_roots, scope_root
from jaxfix.settings.options import Options
from jaxfix.settings.table import SettingError
from jaxfix.sources.discovery import is_excluded, project_files
from jaxfix.sources.file_io import ReadError, read_regular


def _project(document: Document) -> tuple[Options, Cache | None, Path, Path]:
    """The options, cache, workspace folder and project root a `jaxfix --check` of the
    workspace folder would use for this file (no cache where the CLI would refuse its
    directory, nor outside the workspace folder: a library's file opened by go-to-definition
    gets none written beside it)."""
    path = Path(document.path)
    config = load(None, [path])
    start = [Path(document.folder)] if document.folder else [path.parent]
    options = replace(
        build_options(config, {}, [path]), project_roots=project_roots(config, start)
    )  # its project's jax pin too
    try:
        location = cache_location(None, config, start)
        cache = (
            Cache(location, options)
            if document.folder
            and Path(os.path.realpath(location)).is_relative_to(
                os.path.realpath(document.folder)
            )
            else None
        )
    except CacheDirError:
        cache = None
    return options, cache, start[0], scope_root(config, start)


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
        options, cache, root, project = _project(document)
    except SettingError as error:
        return Answer(None, failure=f"configuration error: {error}")
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
    with project_run(
        project_files(project, [path], options.exclude, options.all_includes)
    ):
        return _answer(job, path, options, cache)


def _answer(job: Job, path: Path, options: Options, cache: Cache | None) -> Answer:
    from jaxfix.check.engine import process_file

    source = job.document.source
    if isinstance(job, Check):
        cached = cache.get(path, source.original) if cache else None
        if cached is not None:
            return Answer(cached)
        result = process_file(source, options)
        if cache and _on_disk(
            path, source.original, options
        ):  # an unsaved buffer's result would only evict the file's entry
            cache.put(result)
        return Answer(result)
    if isinstance(job, FixOne):
        first, last = job.lines
        options = replace(
            options,
            select=(job.code,),
            unsafe_fixes=job.unsafe,
            changed_lines={path.resolve(): frozenset(range(first, last + 1))},
        )
    else:
        assert isinstance(job, FixAll)
        options = replace(options, unsafe_fixes=False)
    return Answer(process_file(source, options))


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
