"""Crash isolation: a file that kills its worker is that file's error; the run goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from snippets import FIXED, VIOLATION

from jaxfix import engine
from jaxfix.options import Options
from jaxfix.runner import run_files

PADDING = "# padding to make the run worth a pool\n" * 200  # above the parallel threshold together


def _tree(tmp_path: Path, crashing: dict[str, str]) -> list[Path]:
    files = []
    for index in range(6):
        path = tmp_path / f"ok{index}.py"
        path.write_text(VIOLATION + PADDING)
        files.append(path)
    for name, marker in crashing.items():
        path = tmp_path / name
        path.write_text(VIOLATION + PADDING + f"# {marker}\n")
        files.append(path)
    return sorted(files)


@pytest.fixture
def crashing_engine(monkeypatch):
    """Workers are forked from this process, so they run this patched engine."""
    real = engine.process_source

    def process_source(path, source, options):
        for marker, signum in ((b"SEGFAULT", signal.SIGSEGV), (b"ABORT", signal.SIGABRT), (b"OOMKILL", signal.SIGKILL)):
            if marker in source:
                os.kill(os.getpid(), signum)
        return real(path, source, options)

    monkeypatch.setattr(engine, "process_source", process_source)


def test_workers_killed_mid_run_cost_only_their_files(tmp_path, crashing_engine):
    files = _tree(tmp_path, {"segv.py": "SEGFAULT", "abort.py": "ABORT", "oom.py": "OOMKILL"})
    results = run_files(files, Options(), write=True, jobs=2)
    errors = {r.path.name: r.error for r in results if r.error}
    assert errors == {
        "segv.py": "the process parsing this file was killed by SIGSEGV; file left untouched",
        "abort.py": "the process parsing this file was killed by SIGABRT; file left untouched",
        "oom.py": "the process parsing this file was killed by SIGKILL (out of memory?); file left untouched",
    }
    ok = [r for r in results if r.path.name.startswith("ok")]
    assert len(ok) == 6 and all(r.written for r in ok)
    assert all(r.path.read_text() == FIXED + PADDING for r in ok)
    assert (tmp_path / "segv.py").read_text().startswith(VIOLATION)


DEEP = {
    "unary-minus": "x = " + "-" * 100_000 + "1\n",
    "attributes": "x = a" + ".b" * 100_000 + "\n",
    "parentheses": "x = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n",
    "sum": "x = " + "+".join(["a"] * 8000) + "\n",
}


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_a_deeply_nested_expression_is_refused_before_libcst(tmp_path, kind):
    """Each of these crashes LibCST (a C stack overflow) or takes minutes; here it is one error."""
    deep = tmp_path / "deep.py"
    deep.write_text(VIOLATION + DEEP[kind])
    files = [deep, *_tree(tmp_path, {})]
    results = run_files(files, Options(), write=True, jobs=2)
    error = next(r for r in results if r.path == deep)
    assert error.error is not None and "nested more than" in error.error and "limit" in error.error
    assert error.error_location is not None and error.error_location.line == VIOLATION.count("\n") + 1
    assert all(r.written for r in results if r.path != deep)


_ORPHAN_CHECK = """
import os, sys, time
from pathlib import Path
sys.path[:0] = {paths!r}
from jaxfix import engine
from jaxfix.options import Options
from jaxfix.runner import run_files

def hang(path, source, options):
    print(os.getpid(), flush=True)
    time.sleep(120)

engine.process_source = hang
files = sorted(Path({root!r}).glob("*.py"))
run_files(files, Options(), write=False, jobs=2)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads process states from /proc")
def test_workers_die_with_a_killed_parent(tmp_path):
    files = _tree(tmp_path, {})
    script = _ORPHAN_CHECK.format(paths=[str(Path(__file__).parent.parent)], root=str(files[0].parent))
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    workers: list[int] = []
    while len(workers) < 2:  # each worker prints its pid once it holds a file
        line = parent.stdout.readline()
        assert line, "the run ended before two workers started"
        workers += [int(word) for word in line.split() if word.isdigit()]
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False
