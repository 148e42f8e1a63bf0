"""Crash isolation: a file that kills its worker is that file's error; the run goes on."""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxfix.check import engine, pool, runner
from jaxfix.check.rule_modules import builtin_modules
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files
from jaxfix.settings.options import Options
from snippets import FIXED, VIOLATION

PADDING = (
    "# padding to make the run worth a pool\n" * 200
)  # above the parallel threshold together


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
    real = engine.check_file

    def check_file(run, path, source, *facts):
        for marker, signum in (
            (b"SEGFAULT", signal.SIGSEGV),
            (b"ABORT", signal.SIGABRT),
            (b"OOMKILL", signal.SIGKILL),
        ):
            if marker in source:
                faulthandler.disable()  # pytest's handler, inherited by the fork, would dump this deliberate crash on the terminal
                os.kill(os.getpid(), signum)
        return real(run, path, source, *facts)

    monkeypatch.setattr(engine, "check_file", check_file)


def test_workers_killed_mid_run_cost_only_their_files(tmp_path, crashing_engine):
    files = _tree(
        tmp_path, {"segv.py": "SEGFAULT", "abort.py": "ABORT", "oom.py": "OOMKILL"}
    )
    results = run_files(Run(Options()).scoped(files), files, write=True, jobs=2)
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


def test_deep_code_is_refused_only_where_libcst_would_parse_it(tmp_path):
    """The refusal guards LibCST: a candidate with nothing to fix is never parsed by it, so
    its 100,000 adjacent strings (one node for `ast` and the engine, 100,000 nested ones for
    LibCST) are fine; with a fix to write, the file is refused."""
    strings = "x = " + "'a' " * 100_000 + "\n"
    dropped, kept = tmp_path / "dropped.py", tmp_path / "kept.py"
    dropped.write_text("# use_abstract_mesh is only named here\n" + strings)
    kept.write_text(VIOLATION + strings)
    results = {
        r.path: r
        for r in run_files(
            Run(Options()).scoped([dropped, kept]), [dropped, kept], write=False, jobs=1
        )
    }
    assert results[dropped].error is None and not results[dropped].diagnostics
    assert (
        results[kept].error is not None
        and "nested too deeply for the parser" in results[kept].error
    )


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_a_deeply_nested_expression_is_refused_before_libcst(tmp_path, kind):
    """Each of these crashes LibCST (a C stack overflow) or takes minutes; here it is one error."""
    deep = tmp_path / "deep.py"
    deep.write_text(VIOLATION + DEEP[kind])
    files = [deep, *_tree(tmp_path, {})]
    results = run_files(Run(Options()).scoped(files), files, write=True, jobs=2)
    error = next(r for r in results if r.path == deep)
    assert error.error is not None and "nested too deeply for the parser" in error.error
    assert (
        error.error_location is not None
        and error.error_location.line == VIOLATION.count("\n") + 1
    )
    assert all(r.written for r in results if r.path != deep)


_ORPHAN_CHECK = """
import os, sys, time
from pathlib import Path
sys.path[:0] = {paths!r}
from jaxfix.check import engine
from jaxfix.settings.options import Options
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files

def hang(run, path, source, *facts):
    os.write(1, b"%d\\n" % os.getpid())  # one write: two workers' lines never interleave
    time.sleep(120)

engine.check_file = hang
files = sorted(Path({root!r}).glob("*.py"))
run_files(Run(Options()).scoped(files), files, write=False, jobs=2)
"""


@pytest.mark.skipif(
    not os.path.exists("/proc/self/stat"), reason="reads process states from /proc"
)
def test_workers_die_with_a_killed_parent(tmp_path):
    files = _tree(tmp_path, {})
    script = _ORPHAN_CHECK.format(
        paths=[str(Path(__file__).parents[2])], root=str(files[0].parent)
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True
    )
    workers: set[int] = set()
    while len(workers) < 2:  # each worker prints its pid once it holds a file
        line = parent.stdout.readline()
        assert line, "the run ended before two workers started"
        workers.add(int(line))
    assert all(_alive(pid) for pid in workers)
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


def _watch_reading(
    monkeypatch, *, interrupt_at: str | None = None
) -> list[tuple[str, list[int]]]:
    """Record, as each file is read, the live worker processes; optionally interrupt there."""
    seen: list[tuple[str, list[int]]] = []
    real = runner._settle_cheaply

    def settle(path, *args, **kwargs):
        seen.append((path.name, pool.running()))
        if path.name == interrupt_at:
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)

    monkeypatch.setattr(runner, "_settle_cheaply", settle)
    return seen


def _early_tree(tmp_path: Path) -> list[Path]:
    """A file worth a worker first, then files the prefilter settles."""
    (tmp_path / "a_big.py").write_text(VIOLATION + PADDING * 3)
    for index in range(10):
        (tmp_path / f"b{index}.py").write_text("x = 1\n")
    return sorted(tmp_path.glob("*.py"))


def test_a_worker_starts_at_the_first_file_to_parse_while_the_rest_is_read(
    tmp_path, monkeypatch
):
    seen = _watch_reading(monkeypatch)
    results = run_files(
        Run(Options()).scoped(_early_tree(tmp_path)),
        _early_tree(tmp_path),
        write=False,
        jobs=2,
    )
    assert seen[0] == ("a_big.py", [])
    assert [len(workers) for _, workers in seen[1:]] == [
        1
    ] * 10  # one file to parse: one worker
    assert results[0].fixed is not None and not pool.running()


@pytest.mark.parametrize("jobs", [1, 2])
def test_nothing_to_parse_starts_no_worker(tmp_path, monkeypatch, jobs):
    seen = _watch_reading(monkeypatch)
    files = _early_tree(tmp_path)[1:]
    run_files(
        Run(Options()).scoped(files),
        files,
        write=False,
        jobs=jobs,
        on_plan=lambda planned: None,
    )
    assert len(seen) == len(files) and not any(workers for _, workers in seen)


def test_an_interrupt_while_reading_stops_the_workers_started_early(
    tmp_path, monkeypatch
):
    seen = _watch_reading(monkeypatch, interrupt_at="b5.py")
    files = _early_tree(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        run_files(Run(Options()).scoped(files), files, write=True, jobs=2)
    started = {pid for _, workers in seen for pid in workers}
    assert started and not pool.running()
    assert not any(_alive(pid) for pid in started)
    assert all(path.read_text() == VIOLATION + PADDING * 3 for path in files[:1])


needs_proc = pytest.mark.skipif(
    not Path(f"/proc/{os.getpid()}/statm").exists(),
    reason="a worker's memory is read from /proc",
)


@needs_proc
def test_a_worker_grown_past_the_limit_is_replaced_and_every_file_checked(
    tmp_path, monkeypatch
):
    started = []
    start = pool.Workers._start

    def counted(self):
        worker = start(self)
        started.append(worker.process.pid)
        return worker

    monkeypatch.setattr(pool.Workers, "_start", counted)
    monkeypatch.setattr(runner, "_WORKER_MAX_RESIDENT", 1)  # every worker has grown
    files = _tree(tmp_path, {})
    results = run_files(Run(Options()).scoped(files), files, write=False, jobs=2)
    assert len(results) == 6
    assert all(r.fixed == (FIXED + PADDING).encode() for r in results)
    # two to begin with, then a fresh one after each file but the last ones
    assert len(set(started)) == len(started) >= 5
    assert not pool.running()


@needs_proc
def test_a_workers_private_pages_are_counted_only_when_the_cheap_bounds_leave_it_open(
    monkeypatch,
):
    """Counting a worker's private pages walks its whole memory (several ms a file): not
    done when all it has resident is within the limit, nor when its anonymous memory less
    what it may share with its parent is past it."""
    counted = []
    monkeypatch.setattr(
        pool, "_resident", lambda pid: counted.append(pid) or 2**62
    )  # "grown", whatever its size
    with pool.Workers(str, 1, lambda task, how: how, max_resident=2**50) as workers:
        workers.grow(1)
        (worker,) = workers.workers
        assert not workers._grown(worker)  # within the limit, all of it
        assert counted == []
        workers.max_resident = 1
        worker.inherited = 0  # as a spawned worker: it shares nothing
        assert workers._grown(worker)  # past the limit without counting
        assert counted == []
        worker.inherited = 2**50  # it may share all it has: the bounds say nothing
        assert workers._grown(worker)
        assert counted == [worker.process.pid]


@needs_proc
def test_a_worker_within_the_limit_serves_the_whole_run(tmp_path, monkeypatch):
    started = []
    start = pool.Workers._start
    monkeypatch.setattr(
        pool.Workers, "_start", lambda self: started.append(1) or start(self)
    )
    files = _tree(tmp_path, {})
    results = run_files(Run(Options()).scoped(files), files, write=False, jobs=2)
    assert len(results) == 6 and all(r.fixed is not None for r in results)
    assert len(started) == 2


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods()
    or not os.path.exists("/proc/self/statm"),
    reason="forked workers, resident memory from /proc",
)
def test_what_a_forked_worker_shares_with_a_large_parent_is_not_its_growth(
    tmp_path, monkeypatch
):
    """A parent holding more than a worker may keep (a language server, a test process that
    loaded JAX): its forked workers share that memory, and still serve the whole run."""
    held = bytearray(300 * 1024 * 1024)  # written, so resident: more than the limit
    held[::4096] = b"x" * len(held[::4096])
    started = []
    start = pool.Workers._start
    monkeypatch.setattr(
        pool.Workers, "_start", lambda self: started.append(1) or start(self)
    )
    files = _tree(tmp_path, {})
    results = run_files(Run(Options()).scoped(files), files, write=False, jobs=2)
    assert len(results) == 6 and all(r.fixed is not None for r in results)
    assert len(started) == 2
    del held


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="workers forked"
)
def test_forked_workers_share_the_word_index_the_parent_built(tmp_path, monkeypatch):
    """The project's files are read for the word index once, before the first worker is
    forked, not once per worker."""
    from jaxfix.analysis.ast_engine.project import Project

    readers = tmp_path / "readers"
    read_words = Project._read_words

    def recorded(self, path):
        with readers.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return read_words(self, path)

    monkeypatch.setattr(Project, "_read_words", recorded)
    tree = tmp_path / "tree"
    tree.mkdir()
    files = _tree(tree, {})
    results = run_files(Run(Options()).scoped(files), files, write=False, jobs=2)
    assert all(r.fixed is not None for r in results)
    assert readers.read_text().split() == [str(os.getpid())] * len(files)


_RULES_IN_WORKERS = """
import os, sys
from pathlib import Path
sys.path[:0] = {paths!r}
from jaxfix.check import runner  # not the engine: as the command line, nothing imported
from jaxfix.check.run import Run
from jaxfix.settings.options import Options

real = runner._parse

def parse(task, run):
    rules = {{m for m in sys.modules if m.startswith("jaxfix.codemods.jax")}}
    os.write(1, b"%d %d\\n" % (os.getpid(), len(rules)))
    return real(task, run)

runner._parse = parse
runner._WORKER_MAX_RESIDENT = 1  # a fresh worker for every file
files = sorted(Path({root!r}).glob("*.py"))
runner.run_files(Run(Options()).scoped(files), files, write=False, jobs=2)
"""


@pytest.mark.skipif(not pool._can_serve(), reason="workers forked by a fork server")
def test_every_worker_starts_with_the_rules_imported(tmp_path):
    """The rule modules are imported once, before the first worker is forked: a fresh
    worker (here one per file) does not import them again for its first file."""
    files = _tree(tmp_path, {})
    script = _RULES_IN_WORKERS.format(
        paths=[str(Path(__file__).parents[2])], root=str(files[0].parent)
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    seen = [line.split() for line in done.stdout.splitlines()]
    assert len({pid for pid, _ in seen}) == len(seen) == len(files)
    assert all(int(imported) == len(builtin_modules()) for _, imported in seen)


@pytest.mark.skipif(not pool._can_serve(), reason="workers forked by a fork server")
def test_replacements_start_as_small_as_the_first_workers(tmp_path, monkeypatch):
    """Replacement workers are forked by the fork server, forked with the first workers: what
    this process holds after that (here 200 MB, as a run's parent holds every file it read
    and every result) is in none of them. The server and every worker are gone at the end."""
    sizes = tmp_path / "sizes"
    real_check, real_settle = engine.check_file, runner._settle_cheaply
    held: list[bytearray] = []
    servers: list[int] = []

    def check_file(run, path, source, *facts):
        with open("/proc/self/statm") as statm, sizes.open("a") as out:
            out.write(f"{os.getpid()} {os.getppid()} {statm.read().split()[1]}\n")
        return real_check(run, path, source, *facts)

    def settle(path, *args, **kwargs):
        if path.name == "ok5.py":  # read after the first workers started
            grown = bytearray(200 * 1024 * 1024)
            grown[::4096] = b"x" * len(grown[::4096])  # written: resident
            held.append(grown)
        return real_settle(path, *args, **kwargs)

    server = pool._ForkServer.__init__

    def recorded(self, *args):
        server(self, *args)
        servers.append(self.pid)

    monkeypatch.setattr(engine, "check_file", check_file)
    monkeypatch.setattr(runner, "_settle_cheaply", settle)
    monkeypatch.setattr(pool._ForkServer, "__init__", recorded)
    monkeypatch.setattr(runner, "_WORKER_MAX_RESIDENT", 1)  # every worker has grown
    files = _tree(tmp_path, {})
    results = run_files(Run(Options()).scoped(files), files, write=False, jobs=2)
    assert all(r.fixed == (FIXED + PADDING).encode() for r in results)
    page = os.sysconf("SC_PAGE_SIZE")
    seen = [line.split() for line in sizes.read_text().splitlines()]
    assert len(servers) == 1 and {int(ppid) for _, ppid, _ in seen} == set(servers)
    assert len({pid for pid, _, _ in seen}) == len(seen) == 6  # a fresh one for each
    assert max(int(pages) * page for _, _, pages in seen) < 150 * 1024 * 1024 + min(
        int(pages) * page for _, _, pages in seen
    )
    assert not pool.running() and not _alive(servers[0])
    held.clear()
