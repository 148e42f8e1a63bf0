"""A file with a pending fix, through the command line with the cache: a run that writes nothing
and shows no fixed code (`--check` printing text, counts, `github` or `gitlab`) takes its
result from the cache with the fix summarized, and prints what a fresh run prints; a run that
writes the fix or shows it (a diff, JSON's edits, a suggestion) derives it again. The entry is
invalidated by each change that invalidates any other entry."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from jaxfix.cache.store import Cache
from jaxfix.check import dependencies
from jaxfix.cli.main import cli

OUTER = 'from jax.sharding import AbstractMesh\n\nOUTER = AbstractMesh(({size}, 4), ("data", "model"))\n'
# The inner mesh is resized to the outer one's size, which another module holds.
MAIN = """\
from jax.sharding import AbstractMesh, use_abstract_mesh

from {module} import OUTER

with use_abstract_mesh(OUTER):
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        pass
"""
ARGS = ["-j", "1", "--color", "never", "--jax-version", "0.10.2"]


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch):
    """Files written by a test count as settled at once, so results are cached (the margin
    for coarse timestamps is tested in test_cache_dependencies.py)."""
    monkeypatch.setattr(dependencies, "SETTLED_NS", 0)


@pytest.fixture
def cache_hits(monkeypatch):
    """The files whose result the runs took from the cache."""
    hits: list[str] = []
    real = Cache.get

    def get(self, path, source, lines=None, **kwargs):
        found = real(self, path, source, lines, **kwargs)
        if found is not None:
            hits.append(os.path.relpath(path))
        return found

    monkeypatch.setattr(Cache, "get", get)
    return hits


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxfix]\nselect = ["JAX002"]\nunsafe-fixes = true\n'
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "meshes.py").write_text(OUTER.format(size=8))
    (tmp_path / "pkg" / "main.py").write_text(MAIN.format(module="pkg.meshes"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def jaxfix(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*ARGS, *args], catch_exceptions=False)
    return result.exit_code, result.output


CHECK = ("--check", "pkg")
RESIZED = b'AbstractMesh((8, 4), ("data", "model"))'


def test_a_check_takes_the_pending_fix_from_the_cache_and_prints_the_same(
    project, cache_hits
):
    fresh = jaxfix(*CHECK)
    assert fresh[0] == 1 and "files that would change │ 1" in fresh[1], fresh[1]
    assert cache_hits == []
    assert jaxfix(*CHECK) == fresh
    assert cache_hits == ["pkg/main.py"]


@pytest.mark.parametrize(
    ("args", "hit"),
    [
        (("--check", "--statistics"), True),
        (("--check", "--format", "github"), True),
        (("--check", "--format", "gitlab"), True),
        (("--check", "--format", "json"), False),  # its diff and edits
        (("--check", "--format", "sarif"), False),  # its suggestions
        (("--check", "--format", "rdjson"), False),
        (("--check", "--format", "github-suggestions"), False),
        (("--diff",), False),
        (("--dry-run",), False),
    ],
)
def test_only_a_run_that_shows_no_fixed_code_takes_the_summary(
    project, cache_hits, args, hit
):
    fresh = jaxfix(*args, "--no-cache", "pkg")
    jaxfix(*CHECK)  # the entry, its fix summarized
    cache_hits.clear()
    assert jaxfix(*args, "pkg") == fresh
    assert cache_hits == (["pkg/main.py"] if hit else [])


def test_a_run_that_writes_derives_the_fix_again(project, cache_hits):
    jaxfix(*CHECK)
    cache_hits.clear()
    assert jaxfix("pkg")[0] == 0
    assert cache_hits == []
    assert RESIZED in (project / "pkg" / "main.py").read_bytes()
    assert jaxfix(*CHECK)[0] == 0  # its new bytes: nothing left


def _edit_main(project):
    main = project / "pkg" / "main.py"
    main.write_text(main.read_text() + "# edited\n")


def _resize_outer(project):
    (project / "pkg" / "meshes.py").write_text(OUTER.format(size=4))


def _shadow_outer(project):
    """A module where the import was looked for before the one found (next to a script)."""
    (project / "scripts" / "meshes.py").write_text(OUTER.format(size=4))


def _remove_outer(project):
    (project / "pkg" / "meshes.py").unlink()


def _touch_main(project):
    """The same bytes: only a summarized fix is refused (its description is shown as it
    is, trusted only while the file is as it was)."""
    main = project / "pkg" / "main.py"
    os.utime(main, ns=(0, main.stat().st_mtime_ns + 1_000_000))


PKG, SCRIPT = "pkg/main.py", "scripts/main.py"
CHANGES = {  # the change, the options of the run after it, the files whose entry it spoils
    "the file's own bytes": (_edit_main, (), {PKG}),
    "an imported module's bytes": (_resize_outer, (), {PKG}),
    "an imported module removed": (_remove_outer, (), {PKG}),
    "a module created where the import was looked for": (_shadow_outer, (), {SCRIPT}),
    "the file touched": (_touch_main, (), {PKG}),
    "an option": (lambda project: None, ("--jax-version", "0.12.0"), {PKG, SCRIPT}),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_each_change_that_invalidates_an_entry_invalidates_a_pending_fix(
    project, cache_hits, change
):
    edit, args, spoiled = change
    scripts = project / "scripts"
    scripts.mkdir()
    (project / "meshes.py").write_text(OUTER.format(size=8))
    (scripts / "main.py").write_text(MAIN.format(module="meshes"))
    paths = ("pkg", "scripts")
    jaxfix("--check", *paths)
    assert jaxfix("--check", *paths)[0] == 1
    assert sorted(cache_hits) == [PKG, SCRIPT]
    cache_hits.clear()
    edit(project)
    fresh = jaxfix("--check", "--no-cache", *args, *paths)
    assert jaxfix("--check", *args, *paths) == fresh
    assert not spoiled & set(cache_hits)  # (an answer may have read the other file too)
    cache_hits.clear()
    assert jaxfix("--check", *args, *paths) == fresh  # and kept again
    assert sorted(cache_hits) == [PKG, SCRIPT]
