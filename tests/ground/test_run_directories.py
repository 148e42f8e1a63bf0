"""A run's private temporary directory (jaxfix/ground/run_directories.py): making one removes
those of its kind that runs killed before their end left, and nothing else: not a running
process's, not another kind's, not a link (nor what it points to), not a directory holding what
no run of that kind puts there, not one another user could write to."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jaxfix.ground.run_directories import make_run_directory

HOLDS = re.compile(r"[0-9a-f]+|cache/")
ENTRY = "0a1b"


@pytest.fixture(scope="module")
def gone() -> int:
    """The id of a process that has ended."""
    with subprocess.Popen([sys.executable, "-c", ""]) as process:
        process.wait()
    return process.pid


def _left(temporary: Path, pid: int, kind: str = "test") -> Path:
    """A directory as a run of `kind` by process `pid` leaves it."""
    left = temporary / f"jaxfix-{kind}-{pid}-k3_x9q"
    left.mkdir(mode=0o700)
    (left / ENTRY).write_bytes(b"")
    (left / "cache").mkdir()
    (left / "cache" / "anything").write_bytes(b"")
    return left


def test_a_killed_run_s_directory_is_removed(system_temp, gone):
    left = _left(system_temp, gone)
    made = make_run_directory("test", HOLDS)
    assert not left.exists()
    assert made.parent == system_temp
    assert made.name.startswith(f"jaxfix-test-{os.getpid()}-")
    assert made.stat().st_mode & 0o777 == 0o700
    assert list(system_temp.iterdir()) == [made]


def test_a_running_process_s_directory_is_kept(system_temp):
    with subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    ) as running:
        assert running.stdin is not None
        left = _left(system_temp, running.pid)
        make_run_directory("test", HOLDS)
        assert (left / ENTRY).is_file()
        running.stdin.close()
    own = _left(system_temp, os.getpid(), "own")
    make_run_directory("own", HOLDS)
    assert (own / ENTRY).is_file()


def test_another_kind_s_directory_is_kept(system_temp, gone):
    other = _left(system_temp, gone, "other")
    make_run_directory("test", HOLDS)
    assert (other / ENTRY).is_file()


@pytest.mark.parametrize(
    "forged",
    ["a link to one", "a file", "a foreign file in it", "a link in it", "open"],
)
def test_what_is_not_a_run_s_directory_is_kept(
    system_temp, tmp_path_factory, gone, forged
):
    """Named as a killed run's directory: left as it is, and nothing it points to removed."""
    outside = _left(tmp_path_factory.mktemp("outside"), gone)
    named = system_temp / outside.name
    if forged == "a link to one":
        named.symlink_to(outside, target_is_directory=True)
    elif forged == "a file":
        named.write_bytes(b"")
    else:
        _left(system_temp, gone)
        if forged == "a foreign file in it":
            (named / "notes.txt").write_bytes(b"")
        elif forged == "a link in it":
            (named / "0f").symlink_to(outside / ENTRY)
        else:
            named.chmod(0o770)
    make_run_directory("test", HOLDS)
    assert named.is_symlink() or named.exists()
    assert (outside / ENTRY).is_file()
    if named.is_dir():
        assert (named / ENTRY).is_file()
