"""`pytest -p jaxfix.record`: record the JAX001-JAX003 errors that fail tests, without `repair`.

The evidence goes to `$JAXFIX_RECORD` (default: `jaxfix-evidence.jsonl` in the directory pytest
runs in); `jaxfix --evidence FILE` applies it later, in any mode and format (docs/repair.md).
Errors that end the program itself (not a test) are recorded too, from this process on.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from jaxfix.evidence import recorder
from jaxfix.evidence.recorder import pytest_exception_interact  # noqa: F401 - the hook pytest calls

DEFAULT_FILE = "jaxfix-evidence.jsonl"
# The evidence file a process above this one started fresh: its run's other processes (xdist's
# workers, a pytest a test starts) inherit it and append, never start it again.
STARTED_ENV = "JAXFIX_RECORD_STARTED"


def _start_fresh(path: str, config: Any) -> None:
    """A recording run starts with no file: records a checkout came with (or a committed
    symlink's target) never mix with the run's. The file is unlinked, never followed; the
    writer then creates it without following a link."""
    if (
        os.environ.get(STARTED_ENV) == path
        or hasattr(config, "workerinput")  # an xdist worker: its controller started it
        or recorder.PATTERNS_ENV in os.environ  # inside `jaxfix repair`: its own file
    ):
        return
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    os.environ[STARTED_ENV] = path


def pytest_configure(config: Any) -> None:
    """Never fails the test run: a recorder that cannot start says so and records nothing."""
    path = os.environ.get(recorder.FILE_ENV) or os.path.join(
        str(config.invocation_params.dir), DEFAULT_FILE
    )
    try:
        from jaxfix.evidence.recording import recorder_patterns

        path = os.path.abspath(path)
        _start_fresh(path, config)
        recorder.install(path, recorder_patterns())
    except Exception as error:  # noqa: BLE001 - e.g. jaxfix's own dependencies missing here
        sys.stderr.write(
            f"jaxfix.record: not recording: {type(error).__name__}: {error}\n"
        )
