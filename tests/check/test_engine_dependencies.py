"""What the new engine's answers about a module depend on (jaxfix/analysis/ast_engine/project.py
records it, jaxfix/check/dependencies.py turns it into a cached result's dependencies, jaxfix/cache/store.py
checks them): a cached result is never stale. A function's parameters take the values its
callers anywhere in the run pass, found through a search of the run's files by words, so a
changed caller, a new file with a caller, a caller gone, and a module appearing where an import
was looked for each make the entry a miss; a file that does not hold the searched words does
not."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Mesh
from jaxfix.cache.store import Cache
from jaxfix.check.dependencies import recorded
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location
from jaxfix.settings.options import Options

LATER_NS = 10**9 * 3600  # the engine created an hour after the files were written
LIB = b'import jax\n\n\ndef make(n):\n    return jax.make_mesh((n,), ("data",))\n'
TRAIN = b"from pkg.lib import make\n\nmake(4)\n"
MAIN = b'import jax\nfrom pkg.sizes import N\n\nmesh = jax.make_mesh((N,), ("data",))\n'


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"")
    (package / "lib.py").write_bytes(LIB)
    (package / "train.py").write_bytes(TRAIN)
    (package / "main.py").write_bytes(MAIN)
    return tmp_path


def _files(tree: Path) -> tuple[Path, ...]:
    return tuple(sorted([*tree.rglob("*.py"), *tree.rglob("*.ipynb")]))


def _engine(tree: Path) -> Engine:
    return Engine(roots=(tree,), files=_files(tree), jax_version=(0, 10, 2))


def _check(tree: Path, name: str, engine: Engine | None = None) -> FileResult:
    """The mesh each `make_mesh` call in pkg/<name> builds, as the new engine answers in a run
    over the tree's files, as one diagnostic, with what the answers depended on."""
    target = tree / "pkg" / name
    engine = engine or _engine(tree)
    module = engine.begin(target)
    assert isinstance(module, Module)
    answers = [
        repr(engine.value_of(module, node))
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "make_mesh"
    ]
    engine.project.created_ns = time.time_ns() + LATER_NS
    dependencies, lookups = recorded(engine.project, target)
    diagnostic = Diagnostic(
        "JAX002", "; ".join(answers), Location(1, 1), Location(1, 2)
    )
    return FileResult(
        target,
        target.read_bytes(),
        None,
        (diagnostic,),
        dependencies=dependencies,
        lookups=lookups,
    )


def _cache(tree: Path, files: Iterable[Path] | None = None) -> Cache:
    """The cache of a run over `files` (None: outside a run)."""
    return Cache(
        tree / "cache",
        Options(select=("JAX002",), jax_version=(0, 10, 2)),
        None if files is None else tuple(files),
    )


def _cached(tree: Path, name: str) -> FileResult | None:
    """A warm run's answer for pkg/<name>: a run over the tree's files as they are now."""
    target = tree / "pkg" / name
    return _cache(tree, _files(tree)).get(target, target.read_bytes())


def _fill(tree: Path, name: str) -> FileResult:
    result = _check(tree, name)
    _cache(tree, _files(tree)).put(result)
    assert _cached(tree, name) == result
    return result


def test_the_callers_search_is_recorded_with_the_files_it_found(tree):
    result = _check(tree, "lib.py")
    assert "axis_sizes=(4,)" in result.diagnostics[0].message  # from train.py's call
    (lookup,) = result.lookups
    assert lookup.words == ("make", "lib")
    assert lookup.holders == {tree / "pkg" / "train.py"}
    assert tree / "pkg" / "train.py" in {d.path for d in result.dependencies}


def test_a_caller_in_another_file_changing_makes_the_entry_a_miss(tree):
    before = _fill(tree, "lib.py")
    (tree / "pkg" / "train.py").write_bytes(TRAIN.replace(b"4", b"8"))
    assert _cached(tree, "lib.py") is None
    assert _check(tree, "lib.py").diagnostics != before.diagnostics  # it would be stale


def test_a_new_file_with_a_caller_makes_the_entry_a_miss(tree):
    before = _fill(tree, "lib.py")
    (tree / "pkg" / "evaluate.py").write_bytes(TRAIN.replace(b"4", b"2"))
    assert _cached(tree, "lib.py") is None
    after = _check(tree, "lib.py").diagnostics[0].message
    assert after != before.diagnostics[0].message
    assert "axis_sizes=(None,)" in after  # the two callers disagree


def test_a_caller_gone_makes_the_entry_a_miss(tree):
    _fill(tree, "lib.py")
    (tree / "pkg" / "train.py").unlink()
    assert _cached(tree, "lib.py") is None


def test_a_file_leaving_the_run_makes_the_entry_a_miss(tree):
    _fill(tree, "lib.py")
    target = tree / "pkg" / "lib.py"
    run = [p for p in _files(tree) if p.name != "train.py"]
    assert _cache(tree, run).get(target, LIB) is None


def test_files_that_do_not_hold_the_words_leave_the_entry_a_hit(tree):
    result = _fill(tree, "lib.py")
    (tree / "pkg" / "other.py").write_bytes(b"def make(n):\n    return n\n")  # no `lib`
    (tree / "pkg" / "main.py").write_bytes(MAIN + b"# edited\n")
    assert _cached(tree, "lib.py") == result
    # Touched, same words and bytes: its signature changed, so it is read again, and holds.
    train = tree / "pkg" / "train.py"
    train.write_bytes(TRAIN)
    os.utime(train, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert _cached(tree, "lib.py") == result


def test_a_module_appearing_where_an_import_was_looked_for_makes_the_entry_a_miss(tree):
    before = _fill(tree, "main.py")
    assert "axis_sizes=(None,)" in before.diagnostics[0].message
    (tree / "pkg" / "sizes.py").write_bytes(b"N = 4\n")
    assert _cached(tree, "main.py") is None
    assert "axis_sizes=(4,)" in _check(tree, "main.py").diagnostics[0].message


def test_a_package_appearing_where_an_import_was_looked_for_makes_the_entry_a_miss(
    tree,
):
    _fill(tree, "main.py")
    (tree / "pkg" / "sizes").mkdir()
    assert _cached(tree, "main.py") is None


def test_an_entry_whose_record_of_the_run_files_is_gone_or_forged_is_a_miss(tree):
    _fill(tree, "lib.py")
    (record,) = (tree / "cache").glob("files-*")
    data = record.read_bytes()
    record.write_bytes(data.replace(b"train.py", b"trainX.py"))
    assert _cached(tree, "lib.py") is None
    record.unlink()
    assert _cached(tree, "lib.py") is None


def test_outside_a_run_an_entry_with_searches_is_a_miss(tree):
    _fill(tree, "lib.py")
    assert _cache(tree).get(tree / "pkg" / "lib.py", LIB) is None


def test_a_file_changed_just_before_the_run_is_read_again_by_the_next(tree):
    """A signature taken in the same clock tick as a change proves nothing: such a file is
    recorded without one, and a warm run reads it (here: it gained a caller)."""
    target = tree / "pkg" / "lib.py"
    engine = _engine(tree)
    engine.begin(target)
    engine.project.candidate_files("make", target)
    _, lookups = recorded(engine.project, target)  # created now: not settled
    result = FileResult(target, LIB, None, (), lookups=lookups)
    _cache(tree, _files(tree)).put(result)
    assert _cached(tree, "lib.py") == result  # read again, still the same holders
    main = tree / "pkg" / "main.py"
    main.write_bytes(MAIN + b"from pkg.lib import make\n")
    assert _cached(tree, "lib.py") is None


def test_answers_about_a_module_do_not_depend_on_the_modules_asked_before(tree):
    """`begin` keeps no answer of an earlier module's questions: what a module's answers
    depend on is what was recorded for it, whatever the order of the run."""
    alone = _check(tree, "main.py")
    engine = _engine(tree)
    assert _check(tree, "lib.py", engine).lookups  # the callers searched, train.py read
    after = _check(tree, "main.py", engine)
    assert set(after.dependencies) == set(alone.dependencies)
    assert tree / "pkg" / "train.py" not in {d.path for d in after.dependencies}
    assert after.lookups == alone.lookups == ()
    assert after.diagnostics == alone.diagnostics


def _notebook(*cells: str) -> bytes:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": cell,
                }
                for cell in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    ).encode()


def test_a_caller_in_a_notebook_of_the_run_is_its_code_cells_and_its_change_is_seen(
    tree,
):
    (tree / "pkg" / "train.py").unlink()
    notebook = tree / "pkg" / "explore.ipynb"
    notebook.write_bytes(_notebook("from pkg.lib import make\n", "make(4)\n"))
    result = _fill(tree, "lib.py")
    assert "axis_sizes=(4,)" in result.diagnostics[0].message
    assert result.lookups[0].holders == {notebook}
    notebook.write_bytes(_notebook("from pkg.lib import make\n", "make(8)\n"))
    assert _cached(tree, "lib.py") is None
    assert "axis_sizes=(8,)" in _check(tree, "lib.py").diagnostics[0].message


# -- through a run: a rule over `ast` asking the run's engine, results cached ----------------


class _MeshSizes(Rule):
    """Reports the sizes of the mesh each `make_mesh` call builds, as the engine answers."""

    __doc__ = "## What it does\nA test rule.\n"
    code = "JAX941"
    name = "mesh-sizes"
    summary = "the mesh's sizes"
    tokens = ((b"make_mesh",),)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "make_mesh":
            value = self.analysis.value_of(node)
            sizes = value.axis_sizes if isinstance(value, Mesh) else None
            self.report(node, f"sizes {sizes}")


@pytest.fixture
def rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULES, _MeshSizes.code, _MeshSizes)


def _run(tree: Path) -> FileResult:
    """One run over the tree's files with the cache; pkg/lib.py's result."""
    options = Options(select=("JAX941",), jax_version=(0, 10, 2))
    results = run_files(
        Run(options, roots=(tree,), cache=Cache(tree / "cache", options)).scoped(
            list(_files(tree))
        ),
        list(_files(tree)),
        write=False,
        jobs=1,
    )
    (found,) = [r for r in results if r.path.name == "lib.py"]
    return found


def _hit(tree: Path) -> bool:
    options = Options(select=("JAX941",), jax_version=(0, 10, 2))
    target = tree / "pkg" / "lib.py"
    cache = Cache(tree / "cache", options, tuple(_files(tree)))
    return cache.get(target, target.read_bytes()) is not None


def test_a_run_caches_a_rules_result_with_what_the_engine_used(tree, rule, monkeypatch):
    # The files were written just now: the run takes them as written an hour before.
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + LATER_NS)
    first = _run(tree)
    assert [d.message for d in first.diagnostics] == ["sizes (4,)"]
    assert first.lookups and first.lookups[0].holders == {tree / "pkg" / "train.py"}
    assert _hit(tree)
    (tree / "pkg" / "evaluate.py").write_bytes(TRAIN.replace(b"4", b"8"))
    assert not _hit(tree)
    assert [d.message for d in _run(tree).diagnostics] == ["sizes (None,)"]
    assert _hit(tree)


def test_a_file_in_a_newer_grammar_is_one_line_naming_the_python(tree, rule):
    if sys.version_info >= (3, 14):
        pytest.skip("the running Python reads PEP 758 itself")
    core = tree / "pkg" / "core.py"
    core.write_bytes(  # PEP 758 (3.14), not blanked for `ast` as PEP 695 is
        b'import jax\nmesh = jax.make_mesh((2,), ("data",))\n\n\n'
        b"try:\n    pass\nexcept ValueError, TypeError:\n    pass\n"
    )
    options = Options(select=("JAX941",), jax_version=(0, 10, 2))
    results = {
        r.path.name: r
        for r in run_files(
            Run(options, roots=(tree,)).scoped(list(_files(tree))),
            list(_files(tree)),
            write=False,
            jobs=1,
        )
    }
    assert results["core.py"].error.startswith(
        "not checked: this file needs Python 3.14"
    )
    assert results["core.py"].error_location.line == 7
    assert [d.message for d in results["lib.py"].diagnostics] == ["sizes (4,)"]
    assert [d.message for d in results["main.py"].diagnostics] == ["sizes (None,)"]


def test_at_most_eight_records_of_the_run_files_are_kept(tree, monkeypatch):
    from jaxfix.check import dependencies

    cache = _cache(tree)
    digests = []
    for n in range(10):
        entries = ((tree / f"file{n}.py", (n, n, n, n)),)
        record = dependencies.RunFiles(
            hashlib.sha256(dependencies._encode_entries(entries)).hexdigest(), entries
        )
        monkeypatch.setitem(dependencies._known_run_files, record.digest, record)
        assert cache._write_run_files(record.digest)
        digests.append(record.digest)
        time.sleep(0.01)  # distinct modification times
    kept = {p.name.removeprefix("files-") for p in (tree / "cache").glob("files-*")}
    assert kept == set(digests[2:])
    assert cache._read_run_files(digests[-1]) == record


def test_modules_kept_between_two_modules_are_bounded_and_answers_unchanged(
    tree, monkeypatch
):
    """Past the budget the least recently used trees go when the next module begins; a
    question reaching one parses it again, with the same answer."""
    from jaxfix.analysis.ast_engine import project

    alone = _check(tree, "lib.py")
    engine = _engine(tree)
    _check(tree, "lib.py", engine)
    assert tree / "pkg" / "train.py" in engine.project._modules
    monkeypatch.setattr(project, "KEPT_NODES", 0)
    _check(tree, "main.py", engine)  # lets train.py and lib.py go
    assert tree / "pkg" / "train.py" not in engine.project._modules
    again = _check(tree, "lib.py", engine)
    assert again.diagnostics == alone.diagnostics
    assert set(again.dependencies) == set(alone.dependencies)
    assert again.lookups == alone.lookups


def test_a_notebook_given_as_its_code_cells_is_vouched_for_by_its_file(tree):
    """The run gives a notebook it checks as its code cells (with a random comment tag): an
    answer reading that module depends on the notebook's file, which holds that code."""
    from jaxfix.sources.notebook import parse, to_module

    (tree / "pkg" / "train.py").unlink()
    notebook = tree / "pkg" / "explore.ipynb"
    notebook.write_bytes(_notebook("from pkg.lib import make\n", "make(4)\n"))
    engine = _engine(tree)
    engine.begin(notebook, to_module(parse(notebook.read_bytes())).code)
    result = _check(tree, "lib.py", engine)
    assert "axis_sizes=(4,)" in result.diagnostics[0].message
    (dependency,) = [d for d in result.dependencies if d.path == notebook]
    assert dependency.digest == hashlib.sha256(notebook.read_bytes()).hexdigest()
    # A buffer that is not the file's code (an editor's unsaved text) is not vouched for.
    buffer = _notebook("from pkg.lib import make\n", "make(2)\n")
    engine.begin(notebook, to_module(parse(buffer)).code)
    result = _check(tree, "lib.py", engine)
    assert "axis_sizes=(2,)" in result.diagnostics[0].message  # the buffer's caller
    (dependency,) = [d for d in result.dependencies if d.path == notebook]
    assert dependency.digest is None


def test_a_source_given_again_is_searched_again(tree):
    engine = _engine(tree)
    project, train = engine.project, tree / "pkg" / "train.py"
    lib = tree / "pkg" / "lib.py"
    project.add_source(train, TRAIN)
    assert project.candidate_files("make", lib) == [train]
    project.add_source(train, b"x = 1\n")  # an editor's buffer: no call any more
    assert project.candidate_files("make", lib) == []


def test_a_file_fixed_earlier_in_the_run_is_read_as_its_bytes(tmp_path, monkeypatch):
    """A file whose fix the run checked (its fixed code run through the rules again) is read by
    a later module's answers as the bytes on disk, not as the fix that was never written: the
    later result is the same whatever came before it, and cached."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    fixed = tmp_path / "a_fixed.py"  # a JAX001 site in a test of another message: fixed
    fixed.write_bytes(
        (
            fixtures / "JAX001" / "expected_error_assert_raises_regex_other_message.py"
        ).read_bytes()
    )
    reader = tmp_path / "b_reader.py"  # its test's `assertRaisesRegex` is searched for
    reader.write_bytes(
        (fixtures / "JAX012" / "expected_error_in_a_test.py").read_bytes()
    )
    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + LATER_NS)
    options = Options(jax_version=(0, 10, 2))

    def results(files: list[Path]) -> dict[str, FileResult]:
        found = run_files(
            Run(options, roots=(tmp_path,)).scoped(files), files, write=False, jobs=1
        )
        return {r.path.name: r for r in found}

    after_fix = results([fixed, reader])
    assert after_fix["a_fixed.py"].fixed is not None
    alone = results([reader, fixed])["b_reader.py"]
    assert after_fix["b_reader.py"] == alone
    assert {d.path.name for d in alone.dependencies} >= {"a_fixed.py"}
    assert all(d.digest is not None for d in after_fix["b_reader.py"].dependencies)
