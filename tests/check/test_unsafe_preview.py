"""The unsafe fixes' preview (jaxfix/check/unsafe_preview.py): derived where the file is
checked, for a run that shows it, and never taken from the cache (which holds no fixed code)."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from fixture_cases import ROOT
from jaxfix.check.engine import check_file
from jaxfix.check.run import build_run
from jaxfix.check.runner import run_files

# a file whose one finding has an unsafe fix only
UNSAFE_ONLY = (
    ROOT
    / "fixtures"
    / "JAX003"
    / "eager_bare_spec_input_on_other_mesh_without_unsafe_fixes.py"
)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.jaxfix]\njax-version = "0.10.2"\n')
    path = tmp_path / "gather.py"
    shutil.copyfile(UNSAFE_ONLY, path)
    return path


def test_the_preview_is_the_file_with_every_fix_for_a_run_that_shows_it(tmp_path):
    path = _project(tmp_path)
    run = build_run([path], {}).scoped([path])
    (shown,) = run_files(
        replace(run, previews_unsafe=True), [path], write=False, jobs=1
    )
    (plain,) = run_files(run, [path], write=False, jobs=1)
    every = check_file(run.with_options(unsafe_fixes=True), path, path.read_bytes())
    assert shown.fixed is None and every.fixed is not None
    assert shown.unsafe_fixed == every.fixed
    assert plain.unsafe_fixed is None and replace(shown, unsafe_fixed=None) == plain
    (unsafe,) = run_files(
        replace(run.with_options(unsafe_fixes=True), previews_unsafe=True),
        [path],
        write=False,
        jobs=1,
    )
    assert unsafe.fixed == every.fixed and unsafe.unsafe_fixed is None


def test_a_cached_result_is_checked_again_for_its_preview(tmp_path):
    path = _project(tmp_path)
    flags = {"cache_dir": str(tmp_path / "cache")}
    for _ in range(2):  # the second run finds the first one's entry
        run = build_run([path], flags, cache=True).scoped([path])
        assert run.cache is not None
        (shown,) = run_files(
            replace(run, previews_unsafe=True), [path], write=False, jobs=1
        )
        assert shown.unsafe_fixed is not None
    cached = run.cache.get(path, path.read_bytes())
    assert cached is not None and cached.unsafe_fixed is None
