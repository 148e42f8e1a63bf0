"""The run's summaries of what each parsed module reads (jaxfix/check/summaries.py): a search
for a function's callers skips, without parsing it, a module whose summary says it reads no such
name, and finds, and depends on, exactly what it found parsing it. An entry is keyed by the
digest of the bytes it was made from (a changed module is parsed again), and one that does not
read as an entry is ignored. A run killed before its end leaves its directory, which the next
run removes (what else may be removed so: tests/ground/test_run_directories.py)."""

from __future__ import annotations

import ast
import hashlib
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine import project as project_module
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.check.dependencies import recorded
from jaxfix.check.summaries import Summaries

LIB = b'import jax\n\n\ndef make(n):\n    return jax.make_mesh((n,), ("data",))\n'
TRAIN = b"from pkg.lib import make\n\nmake(4)\n"
# imports pkg.lib (the search reads only a module that may import it) and holds the word
# `make`, but reads no `make`
ONLY_DEFINES = b"import pkg.lib\n\n\ndef make():\n    return None\n"


def _digest(source: bytes) -> bytes:
    return hashlib.blake2b(source, digest_size=16).digest()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"")
    (package / "lib.py").write_bytes(LIB)
    (package / "train.py").write_bytes(TRAIN)
    (package / "other.py").write_bytes(ONLY_DEFINES)
    return tmp_path


@pytest.fixture
def summaries():
    found = Summaries()
    yield found
    found.close()


def _engine(tree: Path, summaries: Summaries | None) -> Engine:
    files = tuple(sorted(tree.rglob("*.py")))
    engine = Engine(roots=(tree,), files=files, jax_version=(0, 10, 2), for_run=True)
    engine.project.summaries = summaries
    return engine


def _answers(engine: Engine, path: Path) -> tuple[list[str], object]:
    """The value of lib.py's make_mesh call (its `n` from the callers) and what it used."""
    module = engine.begin(path)
    assert isinstance(module, Module)
    answers = [
        repr(engine.value_of(module, node))
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "make_mesh"
    ]
    engine.project.created_ns = time.time_ns() + 10**12
    return answers, recorded(engine.project, path)


@pytest.fixture
def parsed(monkeypatch) -> list[Path]:
    found: list[Path] = []
    original = project_module._parse

    def counting(path: Path, source: bytes) -> object:
        found.append(path)
        return original(path, source)

    monkeypatch.setattr(project_module, "_parse", counting)
    return found


def test_a_module_reading_no_such_name_is_skipped_and_the_answer_is_the_same(
    tree, summaries, parsed
):
    lib, other = tree / "pkg" / "lib.py", tree / "pkg" / "other.py"
    without = _answers(_engine(tree, None), lib)
    assert other.resolve() in parsed  # searched for `make`: parsed
    first = _answers(
        _engine(tree, summaries), lib
    )  # parses it once, leaves its summary
    parsed.clear()
    second = _answers(_engine(tree, summaries), lib)  # another process of the run
    assert other.resolve() not in parsed
    assert (tree / "pkg" / "train.py").resolve() in parsed  # its `make(4)` is read
    assert without == first == second
    assert "4" in without[0][0]
    dependencies = {d.path for d in second[1][0]}
    assert other.resolve() in dependencies or other in dependencies  # still depended on


def test_a_module_parsed_for_a_search_that_finds_nothing_there_is_not_kept(
    tree, summaries, parsed
):
    lib, other, train = (
        tree / "pkg" / name for name in ("lib.py", "other.py", "train.py")
    )
    engine = _engine(tree, summaries)
    _answers(engine, lib)
    kept = engine.project._modules  # noqa: SLF001 - what stays parsed is the point
    assert other.resolve() not in kept  # no `make` read there: let go at once
    assert train.resolve() in kept  # its `make(4)` is in the answer
    assert isinstance(
        engine.project.module(other), Module
    )  # parsed when asked for itself


def test_a_module_the_run_checked_before_is_skipped_as_a_file_read_is(
    tree, summaries, parsed
):
    """A module the run checked (its source given, let go when the next module begins) is
    searched as a module read from its file: skipped, unparsed, where its summary reads no
    such name; the answer and what it depends on the same."""
    lib, other = tree / "pkg" / "lib.py", tree / "pkg" / "other.py"
    engine = _engine(tree, summaries)
    assert isinstance(engine.begin(other, ONLY_DEFINES), Module)  # checked: summarised
    parsed.clear()
    answers, dependencies = _answers(engine, lib)
    assert other.resolve() not in parsed
    assert (tree / "pkg" / "train.py").resolve() in parsed  # its `make(4)` is read
    fresh, fresh_dependencies = _answers(_engine(tree, None), lib)
    assert answers == fresh
    assert "4" in answers[0]
    assert {d.path for d in dependencies[0]} == {d.path for d in fresh_dependencies[0]}


@pytest.mark.parametrize(
    ("code", "read"),
    [
        (
            ONLY_DEFINES,
            False,
        ),  # a function of the same name: the word only where defined
        (b"import pkg.lib\n\n\nclass make:\n    pass\n", False),
        (b"import pkg.lib\n\n\nasync  def\tmake():\n    pass\n", False),
        (ONLY_DEFINES + "make\u00e9 = 1\n".encode(), False),  # another identifier
        (ONLY_DEFINES + b"\n\nmake(8)\n", True),  # a caller: read, found
        (ONLY_DEFINES + b"\n\nx = pkg.lib.make\n", True),
        (ONLY_DEFINES + b"# make\n", True),  # the word elsewhere: left to the parse
        (b"import pkg.lib\n\n\ndef \\\n        make():\n    pass\n", True),
        (
            "import pkg.lib\n\n\ndef make\u00e9():\n    pass\n\n\nmake()\n".encode(),
            True,
        ),
    ],
)
def test_a_module_holding_the_name_only_where_it_defines_it_is_skipped_unparsed(
    tree, summaries, parsed, code, read
):
    """A module whose code spells the name only as a `def` or `class` of its own (a test
    method named as the function searched for) is skipped without being parsed, even before
    any summary of it: the answer, and what it depends on, are a parse's."""
    lib, other = tree / "pkg" / "lib.py", tree / "pkg" / "other.py"
    other.write_bytes(code)
    answers, dependencies = _answers(_engine(tree, summaries), lib)
    assert (other.resolve() in parsed) is read
    parsed.clear()
    fresh, fresh_dependencies = _answers(_engine(tree, None), lib)
    assert other.resolve() in parsed  # without the run's summaries: parsed
    assert answers == fresh
    assert {d.path for d in dependencies[0]} == {d.path for d in fresh_dependencies[0]}


@pytest.mark.parametrize(
    ("code", "spelled", "stored"),
    [
        (b"from pkg.lib import obj\n\nobj.mesh = 1\n", True, True),
        (b"obj . \\\n    mesh += 2\n", True, True),
        (b"(obj.  # the mesh\n    mesh), x = 1, 2\n", True, True),
        (b"for obj.mesh in []:\n    pass\n", True, True),
        (b"x = obj.mesh\n", True, False),  # read, not stored: parsed, then let go
        (b"mesh = 1\n", False, False),  # no attribute spelled so: not parsed
        (b"obj.meshes = 1  # a mesh\n", False, False),
    ],
)
def test_a_search_of_an_attribute_s_stores_reads_a_module_only_where_it_may_store_it(
    tree, summaries, parsed, code, spelled, stored
):
    """`Project.module_storing`: a module that spells no attribute `.name` is skipped
    unparsed; one that does is parsed, and let go where it stores none (its summary then
    skips it in any process of the run); one that stores it is the search's, and kept."""
    path = tree / "pkg" / "stores.py"
    path.write_bytes(code)
    engine = _engine(tree, summaries)
    found = engine.project.module_storing(path, "mesh")
    assert isinstance(found, Module) is stored
    assert (path.resolve() in parsed) is (stored or spelled)
    assert (path.resolve() in engine.project._modules) is stored  # noqa: SLF001
    assert path.resolve() in engine.project.record.files  # the answer depends on it
    parsed.clear()
    again = _engine(tree, summaries).project.module_storing(path, "mesh")
    assert isinstance(again, Module) is stored
    assert (path.resolve() in parsed) is stored  # another process: its summary says


def test_a_changed_module_is_parsed_again(tree, summaries, parsed):
    lib, other = tree / "pkg" / "lib.py", tree / "pkg" / "other.py"
    _answers(_engine(tree, summaries), lib)
    other.write_bytes(ONLY_DEFINES + b"\nmake(8)\n")  # now a caller
    parsed.clear()
    changed = _answers(_engine(tree, summaries), lib)
    assert other.resolve() in parsed
    assert changed == _answers(_engine(tree, None), lib)


def test_an_entry_that_does_not_read_as_one_is_ignored(tree, summaries, parsed):
    lib, other = tree / "pkg" / "lib.py", tree / "pkg" / "other.py"
    summaries.prepare()
    assert summaries.directory is not None
    entry = summaries.directory / _digest(ONLY_DEFINES).hex()
    for forged in (
        b"",
        b"jaxfix-reads 1\nnot a name!\n",
        b"jaxfix-reads 2\nmake\n.not a name\n",
        b"jaxfix-reads 2\n.\n",
        b"make\nother\n",
        b"\xff\xfe",
    ):
        entry.write_bytes(forged)
        assert summaries.get(_digest(ONLY_DEFINES)) is None
        parsed.clear()
        assert _answers(_engine(tree, summaries), lib) == _answers(
            _engine(tree, None), lib
        )
        assert other.resolve() in parsed


def test_entries_round_trip_and_belong_to_the_run(summaries):
    names = (frozenset({"make", "jax", "é_name"}), frozenset({"mesh", "make"}))
    summaries.put(b"\x01" * 16, *names)
    assert summaries.get(b"\x01" * 16) == names
    assert summaries.get(b"\x02" * 16) is None
    summaries.put(b"\x03" * 16, frozenset(), frozenset())
    assert summaries.get(b"\x03" * 16) == (frozenset(), frozenset())
    shared = pickle.loads(pickle.dumps(summaries))  # a spawned worker's
    assert shared.get(b"\x01" * 16) == names
    shared.close()  # only the process that made the directory removes it
    assert summaries.directory is not None and summaries.directory.is_dir()
    directory = summaries.directory
    summaries.close()
    assert not directory.exists()


# a run's process that makes its summaries' directory and is killed (`sys.argv[1]`: "kill")
# or waits for its stdin to close
RUN = """\
import os, signal, sys
from jaxfix.check.summaries import Summaries

summaries = Summaries()
summaries.put(bytes(16), frozenset({"make"}), frozenset())
print(summaries.directory, flush=True)
if sys.argv[1] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
sys.stdin.read()
summaries.close()
"""


def test_a_killed_run_s_directory_is_removed_by_the_next_run(system_temp):
    done = subprocess.run(
        [sys.executable, "-c", RUN, "kill"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    left = Path(done.stdout.strip())
    assert left.parent == system_temp and (left / bytes(16).hex()).is_file()
    _next_run_prepared()
    assert not left.exists()
    assert list(system_temp.iterdir()) == []


def _next_run_prepared() -> None:
    summaries = Summaries()
    summaries.prepare()
    assert summaries.directory is not None and summaries.directory.is_dir()
    summaries.close()


def test_a_running_run_s_directory_is_kept(system_temp):
    with subprocess.Popen(
        [sys.executable, "-c", RUN, "wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as running:
        assert running.stdout is not None and running.stdin is not None
        directory = Path(running.stdout.readline().strip())
        _next_run_prepared()
        assert (directory / bytes(16).hex()).is_file()
        running.stdin.close()
        assert running.wait(timeout=120) == 0
    assert not directory.exists()
