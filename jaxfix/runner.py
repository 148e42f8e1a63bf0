"""Run the engine over many files: in parallel worker processes, results in path order."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from jaxfix.diagnostics import FileResult
from jaxfix.engine import process_file
from jaxfix.options import Options

# Below this many files a worker pool costs more than it saves.
_PARALLEL_THRESHOLD = 16


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run_files(
    files: list[Path],
    options: Options,
    *,
    write: bool,
    jobs: int,
    on_done: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    results: list[FileResult] = []
    if jobs <= 1 or len(files) < _PARALLEL_THRESHOLD:
        for path in files:
            results.append(process_file(path, options, write=write))
            if on_done:
                on_done(results[-1])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(process_file, path, options, write=write) for path in files]
            for future in as_completed(futures):
                results.append(future.result())
                if on_done:
                    on_done(results[-1])
    results.sort(key=lambda r: str(r.path))
    return results
