"""Cached results that used other files (the modules a file imports): an entry is a hit only
while every one of them holds the bytes the analysis read; results whose dependencies jaxfix
cannot vouch for are not cached; entries without dependencies cost no file-system call."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
from pathlib import Path

import pytest

from jaxfix.cache import store as cache_module
from jaxfix.cache.store import Cache
from jaxfix.check import dependencies as dependencies_module
from jaxfix.check.dependencies import snapshot, unchanged
from jaxfix.ground.diagnostics import Dependency, Diagnostic, FileResult, Location
from jaxfix.settings.config import Config, project_roots
from jaxfix.settings.options import Options

SOURCE = b"from pkg.meshes import MESH\n"
MESHES = b"MESH = 8\n"
LATER_NS = 10**9 * 3600  # an index created an hour after the files were written


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "meshes.py").write_bytes(MESHES)
    (tmp_path / "pkg" / "main.py").write_bytes(SOURCE)
    return tmp_path


def _cache(project: Path) -> Cache:
    return Cache(project / "cache", Options(select=("JAX002",), jax_version=(0, 10, 2)))


def _result(project: Path, *dependencies: Dependency) -> FileResult:
    diagnostic = Diagnostic("JAX002", "sizes differ", Location(1, 1), Location(1, 5))
    return FileResult(
        project / "pkg" / "main.py",
        SOURCE,
        None,
        (diagnostic,),
        dependencies=dependencies,
    )


def _snapshot(*paths: Path) -> tuple[Dependency, ...]:
    return snapshot(paths, time.time_ns() + LATER_NS)


def _cached(project: Path) -> FileResult | None:
    return _cache(project).get(project / "pkg" / "main.py", SOURCE)


def test_a_result_with_dependencies_round_trips_while_they_are_unchanged(project):
    result = _result(project, *_snapshot(project / "pkg" / "meshes.py"))
    assert result.dependencies[0].digest == hashlib.sha256(MESHES).hexdigest()
    _cache(project).put(result)
    assert _cached(project) == result


def _edit_keeping_size_and_times(path: Path, data: bytes) -> None:
    """What `rsync -t` or a careless tool does: same size, mtime set back; only ctime moves."""
    status = path.stat()
    assert len(data) == status.st_size
    path.write_bytes(data)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


CHANGES = {
    "edited": lambda p: p.write_bytes(b"MESH = 4\n# now 4\n"),
    "edited, same size and mtime": lambda p: _edit_keeping_size_and_times(
        p, b"MESH = 4\n"
    ),
    "deleted": lambda p: p.unlink(),
    "unreadable (now a directory)": lambda p: (p.unlink(), p.mkdir()),
    "replaced by a symlink to other bytes": lambda p: (
        p.with_name("other.py").write_bytes(b"MESH = 2\n"),
        p.unlink(),
        p.symlink_to(p.with_name("other.py")),
    ),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_changed_dependency_makes_the_entry_a_miss(project, change):
    meshes = project / "pkg" / "meshes.py"
    _cache(project).put(_result(project, *_snapshot(meshes)))
    assert _cached(project) is not None
    change(meshes)
    assert _cached(project) is None


def test_any_one_changed_dependency_is_enough(project):
    (project / "pkg" / "sizes.py").write_bytes(b"A = 8\n")
    dependencies = _snapshot(
        project / "pkg" / "meshes.py", project / "pkg" / "sizes.py"
    )
    _cache(project).put(_result(project, *dependencies))
    (project / "pkg" / "sizes.py").write_bytes(b"A = 4\n")
    assert _cached(project) is None


def test_touched_but_same_bytes_is_still_a_hit(project):
    meshes = project / "pkg" / "meshes.py"
    result = _result(project, *_snapshot(meshes))
    _cache(project).put(result)
    meshes.write_bytes(MESHES)  # rewritten with the same content: new mtime and ctime
    assert _cached(project) == result


def test_a_same_signature_is_trusted_without_reading(project, monkeypatch):
    meshes = project / "pkg" / "meshes.py"
    (dependency,) = _snapshot(meshes)
    monkeypatch.setattr(
        dependencies_module,
        "open",
        lambda *a: pytest.fail("read a file whose signature is unchanged"),
        raising=False,
    )
    assert unchanged(dependency)


def _fail_after_seconds(signum, frame):
    raise AssertionError("reading a dependency hung")


def test_a_forged_dependency_on_a_fifo_or_a_device_is_never_read(project):
    fifo = project / "pkg" / "fifo.py"
    os.mkfifo(fifo)
    previous = signal.signal(signal.SIGALRM, _fail_after_seconds)
    signal.alarm(10)
    try:
        assert not unchanged(Dependency(fifo, "0" * 64))
        assert not unchanged(Dependency(Path("/dev/zero"), "0" * 64))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_file_changed_after_the_index_started_is_not_vouched_for(project):
    """The index may have read the old bytes: a digest of the new ones would make a stale
    answer look current. So the result is not cached at all."""
    meshes = project / "pkg" / "meshes.py"
    (dependency,) = snapshot(
        [meshes], time.time_ns() - 60 * 10**9
    )  # an index a minute old
    assert dependency.digest is None
    _cache(project).put(_result(project, dependency))
    assert _cached(project) is None
    assert not (project / "cache").exists()


def test_a_file_changed_just_before_the_index_started_is_not_vouched_for_either(
    project,
):
    """Timestamps may be coarse (FAT: 2 s) or lag the clock: within SETTLED_NS, no digest."""
    (dependency,) = snapshot(
        [project / "pkg" / "meshes.py"], time.time_ns() + 1_000_000
    )
    assert dependency.digest is None


def test_an_unreadable_dependency_is_not_cached(project):
    (dependency,) = _snapshot(project / "pkg" / "missing.py")
    assert dependency.digest is None
    _cache(project).put(_result(project, dependency))
    assert _cached(project) is None


def test_entries_without_dependencies_cost_no_file_system_call(project, monkeypatch):
    _cache(project).put(_result(project))
    monkeypatch.setattr(
        cache_module,
        "unchanged",
        lambda dependency: pytest.fail("checked a dependency"),
    )
    assert _cached(project) == _result(project)


def test_a_module_many_files_import_is_checked_once_per_run(project, monkeypatch):
    dependency = _snapshot(project / "pkg" / "meshes.py")
    importers = [project / "pkg" / f"user{i}.py" for i in range(3)]
    cache = _cache(project)
    for path in importers:
        path.write_bytes(SOURCE)
        cache.put(FileResult(path, SOURCE, dependencies=dependency))
    checked = []
    monkeypatch.setattr(cache_module, "unchanged", lambda d: checked.append(d) or True)
    cache = _cache(project)
    assert all(cache.get(path, SOURCE) is not None for path in importers)
    assert checked == list(dependency)


def _rewrite(entry: Path, change) -> None:
    magic, _, body = entry.read_bytes().split(b"\n", 2)
    body = json.dumps(change(json.loads(body))).encode()
    entry.write_bytes(
        magic + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    )


FORGERIES = {
    "relative path": lambda d: {
        **d,
        "dependencies": [["meshes.py", *d["dependencies"][0][1:]]],
    },
    "no digest": lambda d: {**d, "dependencies": [[d["dependencies"][0][0], None, []]]},
    "short signature": lambda d: {
        **d,
        "dependencies": [[*d["dependencies"][0][:2], [1, 2]]],
    },
    "not a list": lambda d: {**d, "dependencies": {"a": 1}},
    "missing": lambda d: {k: v for k, v in d.items() if k != "dependencies"},
}


@pytest.mark.parametrize("forge", FORGERIES.values(), ids=FORGERIES.keys())
def test_bad_dependency_records_are_a_miss(project, forge):
    _cache(project).put(_result(project, *_snapshot(project / "pkg" / "meshes.py")))
    (entry,) = [
        p
        for p in (project / "cache").iterdir()
        if not p.name.startswith((".", "CACHEDIR"))
    ]
    _rewrite(entry, forge)
    assert _cached(project) is None


def test_an_entry_of_the_previous_format_is_a_miss(project):
    _cache(project).put(_result(project))
    (entry,) = [
        p
        for p in (project / "cache").iterdir()
        if not p.name.startswith((".", "CACHEDIR"))
    ]
    entry.write_bytes(b"jaxfix-cache 1\n" + entry.read_bytes().split(b"\n", 1)[1])
    assert _cached(project) is None


def test_project_roots(tmp_path, monkeypatch):
    (tmp_path / "repo" / "pkg").mkdir(parents=True)
    config = tmp_path / "repo" / "pyproject.toml"
    paths = [tmp_path / "repo" / "pkg" / "main.py"]
    assert project_roots(Config(config, {}), paths) == (tmp_path / "repo",)
    assert project_roots(Config(config, {"src": ["lib", "."]}), paths) == (
        tmp_path / "repo" / "lib",
        tmp_path / "repo",
    )
    assert project_roots(Config(None, {}), paths) == (tmp_path / "repo" / "pkg",)
    monkeypatch.chdir(tmp_path)
    assert project_roots(Config(None, {}), []) == (tmp_path,)


def test_a_place_an_import_was_looked_for_holds_while_it_stays_what_it_was(tmp_path):
    """A layout fact (digest one of PATH_STATES) is checked by what is at the path now."""
    from jaxfix.check.dependencies import unchanged
    from jaxfix.ground.diagnostics import Dependency

    spot = tmp_path / "meshes.py"
    absent = Dependency(spot, "absent")
    assert unchanged(absent)
    spot.write_text("X = 1\n")
    assert not unchanged(absent)
    assert unchanged(Dependency(spot, "file"))
    spot.unlink()
    spot.mkdir()
    assert unchanged(Dependency(spot, "directory")) and not unchanged(
        Dependency(spot, "file")
    )
