"""What a fleet run says after something went wrong: a hard kill ends its verify commands, a
recovered journal and lost workers are in the report, repositories no longer listed are
marked; and a run stopped by SIGTERM mid-way, resumed, commits each repository once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from workflows.test_migrate import (  # noqa: F401 - isolated_git is autouse
    BEFORE,
    BRANCH,
    CLEAN_CODE,
    FIXED,
    branch_file,
    git,
    isolated_git,
    make_repo,
    run,
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead: only its parent has not read its status yet
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def test_a_verify_command_does_not_outlive_a_hard_kill_of_jaxfix(tmp_path):
    repo = make_repo(tmp_path / "alpha", {"model.py": BEFORE})
    pids = tmp_path / "pids"
    verify = f"sleep 60 & echo $! >> {pids}; echo $$ >> {pids}; wait"
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxfix", "migrate", "-j", "1", "--verify", verify]
        + ["--out", "out", str(repo)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    started: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(started) < 2:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
            started = (
                [int(p) for p in pids.read_text().split()] if pids.exists() else []
            )
        process.kill()  # SIGKILL to jaxfix alone: nothing of it can run
        process.wait()
        deadline = time.monotonic() + 10
        while any(map(alive, started)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(alive, started)), "the verify command outlived jaxfix"
    finally:
        for pid in started:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
