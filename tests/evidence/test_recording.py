"""A recorded run's private directory (jaxfix/evidence/recording.py) that a run killed with
SIGKILL left, after its command ran with the recorder, is removed when the next one is made."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from jaxfix.evidence.recording import RecordingDir

# repair's steps up to a command's end (its Python writing bytecode), then SIGKILL (no
# `finally` runs)
KILLED = """\
import os, signal, subprocess, sys
from jaxfix.evidence.recording import RecordingDir

recording = RecordingDir()
recording.write_patterns()
env = recording.env(1)
env.pop("PYTHONDONTWRITEBYTECODE", None)
with open(recording.output(1), "w") as output:
    subprocess.run(
        [sys.executable, "-c", "import jaxfix_record"],
        env=env,
        stdout=output,
        check=True,
    )
recording.evidence(1).write_text("")
print(recording.path, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_run_s_directory_is_removed_when_the_next_is_made(system_temp):
    done = subprocess.run(
        [sys.executable, "-c", KILLED],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    left = Path(done.stdout.strip())
    assert left.parent == system_temp
    assert (left / "__pycache__").is_dir() and (left / "evidence-1.jsonl").is_file()
    recording = RecordingDir()
    try:
        assert not left.exists()
        assert list(system_temp.iterdir()) == [recording.path]
    finally:
        recording.close()
