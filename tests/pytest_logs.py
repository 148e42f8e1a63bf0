"""Run one pytest session per traceback style on a test file, for logs: each in a process forked
from this one once it has imported JAX and pytest, so each session is what a fresh
`python -m pytest -p no:cacheprovider -q --tb=STYLE TEST_FILE` run here would be, minus the imports.

Usage: python pytest_logs.py OUT_DIR TEST_FILE STYLE...   (from the directory pytest runs in)
Writes each session's stdout to OUT_DIR/<STYLE>.out; prints {style: exit code} as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import traceback


def _session(out: str, test_file: str, style: str) -> int:
    descriptor = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(descriptor, 1)
    os.close(descriptor)
    sys.path[0] = os.getcwd()  # as `python -m pytest` has it
    import pytest

    code = pytest.main(["-p", "no:cacheprovider", "-q", f"--tb={style}", test_file])
    sys.stdout.flush()
    return int(code)


def main() -> None:
    out_dir, test_file, *styles = sys.argv[1:]
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax  # noqa: F401 - imported once, before the sessions
    import pytest  # noqa: F401

    codes = {}
    for style in styles:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                code = _session(os.path.join(out_dir, f"{style}.out"), test_file, style)
            except BaseException:  # noqa: BLE001 - said on stderr, and the session's code is 70
                traceback.print_exc()
                code = 70
            sys.stderr.flush()
            os._exit(code)
        codes[style] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    sys.stdout.write(json.dumps(codes))


if __name__ == "__main__":
    main()
