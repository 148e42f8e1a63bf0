"""A warm run does not read the files the prefilter settled before, while they are unchanged
(jaxfix/cache/settled_files.py); whatever the record says, a changed file is read and checked."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import jaxfix.cache.settled_files
import jaxfix.check.runner
from cache.test_cache import run, toy_options  # the same toy tree runs
from jaxfix.cache.settled_files import SettledFiles
from jaxfix.cache.store import Cache
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files
from toy_rules import toy_rules  # noqa: F401 - a pytest fixture

CLEAN = b"import os\n"
VIOLATION = b"from lib import old_api\n\nold_api()\nrisky()\n"


@pytest.fixture
def tree(tmp_path, toy_rules, monkeypatch):  # noqa: F811 - pytest fixture injection
    # A file changed in the same clock tick keeps its signature, so the record takes only
    # files two seconds old; here the tests change a file's size whenever they change it.
    monkeypatch.setattr(jaxfix.cache.settled_files, "SETTLED_NS", 0)
    src = tmp_path / "src"
    src.mkdir()
    for n in range(5):
        (src / f"clean{n}.py").write_bytes(CLEAN)
    (src / "bad.py").write_bytes(VIOLATION)
    return tmp_path


@pytest.fixture
def reads(monkeypatch):
    """The files the runner reads."""
    read: list[str] = []
    real = jaxfix.check.runner.read_source

    def counting(path, options):
        read.append(Path(path).name)
        return real(path, options)

    monkeypatch.setattr(jaxfix.check.runner, "read_source", counting)
    return read


def _record(tree: Path) -> Path:
    (found,) = (tree / "cache").glob("settled-*")
    return found


def _verdicts(results) -> dict[str, tuple]:
    return {
        name: (r.diagnostics, r.fixed, r.error) for name, r in sorted(results.items())
    }


def test_a_warm_run_reads_only_what_the_prefilter_did_not_settle(tree, reads):
    first = run(tree)
    assert sorted(reads) == sorted(first)  # all read once
    reads.clear()
    second = run(tree)
    assert reads == ["bad.py"]  # the candidate, for its cache entry's digest
    assert _verdicts(second) == _verdicts(first)
    assert all(second[f"clean{n}.py"].source is None for n in range(5))
    assert second["bad.py"].diagnostics


def test_a_changed_file_is_read_and_checked_again(tree, reads):
    run(tree)
    (tree / "src" / "clean2.py").write_bytes(VIOLATION)
    reads.clear()
    second = run(tree)
    assert sorted(reads) == ["bad.py", "clean2.py"]
    assert second["clean2.py"].diagnostics
    reads.clear()
    run(tree)  # now a candidate: no longer in the record
    assert sorted(reads) == ["bad.py", "clean2.py"]


def test_a_file_replaced_by_another_of_the_same_size_is_read(tree, reads):
    run(tree)
    path = tree / "src" / "clean3.py"
    replacement = tree / "src" / "other.tmp"
    replacement.write_bytes(b"import io\n")  # same size: the inode and ctime tell
    os.replace(replacement, path)
    reads.clear()
    run(tree)
    assert "clean3.py" in reads


def test_workers_give_the_same_results(tree, reads):
    first = run(tree, jobs=2)
    reads.clear()
    assert _verdicts(run(tree, jobs=2)) == _verdicts(first)
    assert reads == ["bad.py"]


def test_without_a_cache_every_file_is_read(tree, reads):
    run(tree)
    reads.clear()
    run(tree, cache=False)
    assert len(reads) == 6


def test_files_too_fresh_are_not_recorded(tree, reads, monkeypatch):
    monkeypatch.setattr(jaxfix.cache.settled_files, "SETTLED_NS", 3600 * 10**9)
    run(tree)
    reads.clear()
    run(tree)
    assert len(reads) == 6


@pytest.mark.parametrize(
    "forge",
    [
        lambda data: data[:-10],  # truncated
        lambda data: data.replace(b'"files"', b'"filez"'),  # checksum no longer agrees
        lambda data: b"jaxfix-settled 0\n" + data.split(b"\n", 1)[1],  # another format
    ],
)
def test_a_broken_record_is_ignored(tree, reads, forge):
    run(tree)
    record = _record(tree)
    record.write_bytes(forge(record.read_bytes()))
    reads.clear()
    run(tree)
    assert len(reads) == 6


def _forged(settings: str, files: dict) -> bytes:
    body = json.dumps({"settings": settings, "files": files}).encode()
    return (
        b"jaxfix-settled 1\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    )


def test_a_record_naming_a_candidate_with_another_signature_does_not_hide_it(
    tree, reads
):
    run(tree)
    record = _record(tree)
    settings = json.loads(record.read_bytes().split(b"\n", 2)[2])["settings"]
    bad = os.path.abspath(tree / "src" / "bad.py")
    record.write_bytes(
        _forged(settings, {bad: [1, 2, 3, 4], "relative.py": [1, 2, 3, 4]})
    )
    reads.clear()
    results = run(tree)
    assert "bad.py" in reads and results["bad.py"].diagnostics


def test_a_record_of_other_settings_is_ignored(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(CLEAN)
    signature = list(jaxfix.cache.settled_files.current_signature(path))
    other = SettledFiles(tmp_path, "b" * 64)
    other.path.write_bytes(_forged("a" * 64, {os.path.abspath(path): signature}))
    assert not other.holds(path)
    mine = SettledFiles(tmp_path, "a" * 64)
    mine.path = other.path
    assert mine.holds(path)  # the same record, read with its own settings


def test_notebooks_and_strict_runs_read_every_file(tree, reads):
    (tree / "src" / "nb.ipynb").write_bytes(
        b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    options = toy_options()
    files = sorted((tree / "src").iterdir())
    for _ in range(2):
        run_files(
            Run(options, cache=Cache(tree / "cache", options)).scoped(files),
            files,
            write=False,
            jobs=1,
        )
    assert reads.count("nb.ipynb") == 2
    reads.clear()
    run_files(
        Run(options, cache=Cache(tree / "cache", options)).scoped(files),
        files,
        write=False,
        jobs=1,
        check_syntax=set(files),
    )
    assert len(reads) == len(files)


def test_hostile_file_names_are_recorded_and_skipped(tree, reads):
    src = tree / "src"
    names = ["new\nline.py", "\x1b[31mred.py", os.fsdecode(b"caf\xe9.py")]
    for name in names:
        (src / name).write_bytes(CLEAN)
    run(tree)
    reads.clear()
    second = run(tree)
    assert reads == ["bad.py"]
    assert all(second[name].source is None for name in names)
    record = _record(tree).read_bytes()
    assert b"\n" not in record.split(b"\n", 2)[2]  # the names escaped in one JSON line
    assert b"\x1b" not in record
