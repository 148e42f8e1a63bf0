"""End to end: a mesh imported from another module of the project, through the CLI and the
runner with the cache. An edit to the imported module invalidates its importers' cached
results; in-process and worker runs agree; notebooks and stdin follow imports too."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from jaxfix.cache.store import Cache
from jaxfix.check import dependencies, runner
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files
from jaxfix.cli.main import cli
from jaxfix.settings.options import Options
from jaxfix.sources.paths import PATH_STATES

MESHES = 'from jax.sharding import AbstractMesh\n\nINNER = AbstractMesh(({size}, 4), ("data", "model"))\n'
MAIN = """\
from jax.sharding import AbstractMesh, use_abstract_mesh

from {module} import INNER

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(INNER):
        pass
"""
ARGS = ["--check", "--color", "never", "--jax-version", "0.10.2"]


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch):
    """Files written by a test count as settled at once (their ctime is before the run's index
    started), so results are cached; the 2 s margin for coarse timestamps is tested in
    test_cache_dependencies.py. Workers are forked, so they inherit the setting."""
    monkeypatch.setattr(dependencies, "SETTLED_NS", 0)


@pytest.fixture
def cache_hits(monkeypatch):
    """The files whose result the last runs took from the cache (asked in the main process,
    whatever the number of workers)."""
    hits: list[str] = []
    real = Cache.get

    def get(self, path, source, lines=None, **kwargs):
        found = real(self, path, source, lines, **kwargs)
        if found is not None:
            hits.append(path.name)
        return found

    monkeypatch.setattr(Cache, "get", get)
    return hits


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxfix]\nselect = ["JAX002"]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "meshes.py").write_text(MESHES.format(size=16))
    (tmp_path / "pkg" / "main.py").write_text(MAIN.format(module="pkg.meshes"))
    (tmp_path / "pkg" / "relative.py").write_text(MAIN.format(module=".meshes"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def reported(output: str) -> list[str]:
    """The files a JAX002 diagnostic was reported in."""
    return sorted(set(re.findall(r"(\S+\.(?:py|ipynb)):[\d:a-z ]+: JAX002", output)))


def check(*args: str, stdin: str | None = None) -> tuple[int, list[str]]:
    result = CliRunner().invoke(
        cli, [*ARGS, *args], input=stdin, catch_exceptions=False
    )
    return result.exit_code, reported(result.output)


BOTH = ["pkg/main.py", "pkg/relative.py"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_edit_to_the_imported_module_invalidates_its_importers(
    project, cache_hits, monkeypatch, jobs
):
    monkeypatch.setattr(
        runner, "_PARALLEL_MIN_BYTES", 0
    )  # -j 2 runs workers (on a machine with 2 CPUs)
    meshes = project / "pkg" / "meshes.py"
    assert check("-j", jobs, "pkg") == (1, BOTH)
    assert check("-j", jobs, "pkg") == (1, BOTH)
    assert cache_hits == ["main.py", "relative.py"], (
        "the second run should come from the cache"
    )

    cache_hits.clear()
    meshes.write_text(MESHES.format(size=8))  # the sizes agree now
    assert check("-j", jobs, "pkg") == (0, [])
    assert cache_hits == []
    assert check("-j", jobs, "pkg") == (0, [])
    assert cache_hits == ["main.py", "relative.py"]

    cache_hits.clear()
    meshes.write_text(MESHES.format(size=16))  # and back
    assert check("-j", jobs, "pkg") == (1, BOTH)
    assert cache_hits == []

    meshes.unlink()  # the mesh is unknown: nothing is reported
    assert check("-j", jobs, "pkg") == (0, [])
    assert cache_hits == []


def test_a_run_files_record_a_crash_cut_short_is_written_again(project, cache_hits):
    """Records of the run's files are not fsync'd: what a crash leaves of one is a miss for
    the entries naming it, and the next run writes it again, so the run after that hits."""
    check("-j", "1", "pkg")
    (record,) = (project / ".jaxfix_cache").glob("files-*")
    whole = record.read_bytes()
    record.write_bytes(whole[:10])
    assert check("-j", "1", "pkg") == (1, BOTH)
    assert cache_hits == []
    assert record.read_bytes() == whole
    assert check("-j", "1", "pkg") == (1, BOTH)
    assert cache_hits == ["main.py", "relative.py"]


def test_the_cache_entry_lists_the_imported_module(project):
    check("-j", "1", "pkg")
    entries = [  # the results (not the run's file list, nor what had settled)
        p
        for p in (project / ".jaxfix_cache").iterdir()
        if not p.name.startswith((".", "CACHEDIR", "files-", "settled-"))
    ]
    recorded = {
        json.loads(e.read_bytes().split(b"\n", 2)[2])["path"]: json.loads(
            e.read_bytes().split(b"\n", 2)[2]
        )["dependencies"]
        for e in entries
    }
    meshes = str((project / "pkg" / "meshes.py").resolve())
    main = recorded[str(project / "pkg" / "main.py")]
    # meshes.py, and relative.py, the other module naming INNER and meshes: read to prove it
    # does not rebind `meshes.INNER`
    relative = str((project / "pkg" / "relative.py").resolve())
    assert [path for path, digest, _ in main if len(digest) == 64] == [meshes, relative]
    looked_at = {path: digest for path, digest, _ in main if len(digest) != 64}
    assert looked_at[meshes] == "file", (
        "where the import was found is part of the answer"
    )
    assert looked_at[str((project / "pkg" / "__init__.py").resolve())] == "file"


def test_in_process_and_workers_give_identical_results(project, monkeypatch):
    monkeypatch.setattr(runner, "_PARALLEL_MIN_BYTES", 0)
    options = Options(select=("JAX002",), jax_version=(0, 10, 2))
    files = sorted((project / "pkg").glob("*.py"))
    run = Run(options, roots=(project,)).scoped(files)
    in_process = run_files(run, files, write=False, jobs=1)
    workers = run_files(run, files, write=False, jobs=2)
    assert in_process == workers
    by_name = {r.path.name: r for r in in_process}
    assert [d.code for d in by_name["main.py"].diagnostics] == ["JAX002"]
    contents = [
        d for d in by_name["main.py"].dependencies if d.digest not in PATH_STATES
    ]
    # relative.py also names INNER and meshes: read to prove it does not rebind it
    assert [d.path.name for d in contents] == ["meshes.py", "relative.py"]
    assert contents[0].digest is not None


def _notebook(*cells: str) -> str:
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {
                    "cell_type": "code",
                    "id": f"c{i}",
                    "metadata": {},
                    "execution_count": None,
                    "outputs": [],
                    "source": cell,
                }
                for i, cell in enumerate(cells)
            ],
        }
    )


def test_a_notebook_follows_imports_and_is_invalidated_too(project):
    main = MAIN.format(module="pkg.meshes")
    (project / "explore.ipynb").write_text(
        _notebook(main.split("\n\n")[0], main.split("\n\n", 1)[1])
    )
    assert check("-j", "1", "explore.ipynb") == (1, ["explore.ipynb"])
    (project / "pkg" / "meshes.py").write_text(MESHES.format(size=8))
    assert check("-j", "1", "explore.ipynb") == (0, [])


def test_stdin_follows_imports_from_its_filename_else_from_the_working_directory(
    project,
):
    """Without --stdin-filename the code is a script in the working directory, as `python -`
    runs it: absolute imports are found from there, relative ones lead nowhere (Python refuses
    them too); with it, both are followed from the file's package."""
    for module in (".meshes", "pkg.meshes"):
        code = MAIN.format(module=module)
        assert check("-", "--stdin-filename", "pkg/from_stdin.py", stdin=code) == (
            1,
            ["pkg/from_stdin.py"],
        )
    result = CliRunner().invoke(
        cli,
        [*ARGS, "-"],
        input=MAIN.format(module="pkg.meshes"),
        catch_exceptions=False,
    )
    assert result.exit_code == 1 and re.search(
        r"^-:6:\d+: JAX002 ", result.output, re.MULTILINE
    ), result.output
    assert check("-", stdin=MAIN.format(module=".meshes")) == (0, [])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_src_roots_reach_every_worker(tmp_path, monkeypatch, jobs):
    """`lib/pkg/meshes.py` is found from `app/` only through the configured root `lib`."""
    monkeypatch.setattr(runner, "_PARALLEL_MIN_BYTES", 0)
    (tmp_path / "lib" / "pkg").mkdir(parents=True)
    (tmp_path / "lib" / "pkg" / "meshes.py").write_text(MESHES.format(size=16))
    (tmp_path / "app").mkdir()
    for name in ("train.py", "serve.py"):
        (tmp_path / "app" / name).write_text(MAIN.format(module="pkg.meshes"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxfix]\nselect = ["JAX002"]\n')
    assert check("-j", jobs, "app") == (0, [])
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxfix]\nselect = ["JAX002"]\nsrc = ["lib"]\n'
    )
    assert check("-j", jobs, "app") == (
        1,
        ["app/serve.py", "app/train.py"],
    )  # the new roots: a miss


def test_one_engine_per_run_and_none_when_no_file_is_parsed(project, monkeypatch):
    import jaxfix.analysis.ast_engine as ast_engine

    created = []
    real = ast_engine.Engine

    def counted(roots=(), files=(), jax_version=None, **kwargs):  # noqa: ANN001, ANN003, ANN202 - Engine's
        created.append(roots)
        return real(roots, files, jax_version, **kwargs)

    monkeypatch.setattr(ast_engine, "Engine", counted)
    (project / "pkg" / "plain.py").write_text("import os\n")
    assert check("-j", "1", "pkg") == (1, BOTH)
    assert created == [(project,)]  # shared by main.py and relative.py
    assert check("-j", "1", "pkg") == (1, BOTH)  # all from the cache
    assert check("-j", "1", "pkg/plain.py") == (0, [])  # nothing to parse
    assert created == [(project,)]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_module_created_where_an_import_was_looked_for_invalidates_the_importer(
    project, cache_hits, monkeypatch, jobs
):
    """The first run finds no `meshes` next to `app.py` (so nothing is known, nothing reported);
    creating it there makes the import resolve: the cached result must not be served."""
    monkeypatch.setattr(runner, "_PARALLEL_MIN_BYTES", 0)
    app = project / "app"
    app.mkdir()
    (app / "main.py").write_text(MAIN.format(module="meshes"))
    assert check("-j", jobs, "app") == (0, [])
    assert check("-j", jobs, "app") == (0, [])
    assert cache_hits == ["main.py"], "the second run should come from the cache"
    (app / "meshes.py").write_text(MESHES.format(size=16))
    assert check("-j", jobs, "app") == (1, ["app/main.py"])


def test_a_module_that_shadows_the_one_found_invalidates_the_importer(
    project, cache_hits
):
    """`import meshes` from a script resolves next to the script before the project root: a
    `meshes.py` created there later shadows the root's one, whose sizes agreed."""
    (project / "meshes.py").write_text(MESHES.format(size=8))
    scripts = project / "scripts"
    scripts.mkdir()
    (scripts / "main.py").write_text(MAIN.format(module="meshes"))
    assert check("-j", "1", "scripts") == (0, [])
    assert check("-j", "1", "scripts") == (0, [])
    assert cache_hits == ["main.py"]
    (scripts / "meshes.py").write_text(MESHES.format(size=16))
    assert check("-j", "1", "scripts") == (1, ["scripts/main.py"])
