"""The run (jaxfix/check/run.py): built in one place, its engine shared while it checks and
rebuilt in a worker process from the run's plain data."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import jaxfix
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run, build_run
from jaxfix.settings.options import Options

PACKAGE = Path(jaxfix.__file__).parent
# What assembles a run: the options from config and flags, the result cache, the engine.
_BUILT = re.compile(r"(?<![\w.])(?:build_options|Cache|Engine)\(")
_DEFINED = re.compile(r"^\s*(?:def|class) (?:build_options|Cache|Engine)\(")


def test_the_run_is_assembled_in_one_module_only():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "check" / "run.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if _BUILT.search(code) and not _DEFINED.match(code):
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert found == [], "build the run with jaxfix/check/run.py's build_run:\n" + (
        "\n".join(found)
    )


def _project(tmp_path: Path) -> list[Path]:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxfix]\nselect = ["JAX002"]\njax-version = "0.10.2"\n'
    )
    (tmp_path / "pkg").mkdir()
    files = [tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "b.py"]
    for path in files:
        path.write_text("import jax\n")
    return files


def test_build_run_reads_the_config_and_the_project(tmp_path):
    files = _project(tmp_path)
    run = build_run([files[0]], {"unsafe_fixes": True})
    assert run.options.select == ("JAX002",) and run.options.unsafe_fixes
    assert run.options.jax_version == (0, 10, 2)
    assert run.target is not None and run.target.version == (0, 10, 2)
    assert run.roots == (tmp_path,) and run.scope_root == tmp_path
    # the project's files are where callers are looked for, whatever paths are given
    assert set(run.scoped([files[0]]).scope) == set(files)
    assert build_run([files[0]], {}, whole_project=False).scoped([files[0]]).scope == (
        files[0],
    )


def test_the_engine_is_shared_while_checking_and_fresh_outside(tmp_path):
    run = Run(Options(), roots=(tmp_path,)).scoped(_project(tmp_path))
    assert run.engine((0, 10, 2)) is not run.engine((0, 10, 2))
    with run.checking():
        shared = run.engine((0, 10, 2))
        assert run.engine((0, 10, 2)) is shared
        assert shared.project.files == run.scope
        assert run.with_options(unsafe_fixes=True).engine((0, 10, 2)) is shared
    assert run.engine((0, 10, 2)) is not shared


def test_a_run_travels_to_a_worker_without_its_engine(tmp_path):
    files = _project(tmp_path)
    run = Run(Options(), roots=(tmp_path,)).scoped(files)
    with run.checking():
        engine = run.engine((0, 10, 2))
        copy = pickle.loads(pickle.dumps(run))
    assert len(pickle.dumps(copy)) < 2000  # plain data: no trees, no answers
    assert copy.scope == run.scope and copy.options == run.options
    rebuilt = copy.engine((0, 10, 2))  # still checking, as the worker is
    assert rebuilt is not engine and rebuilt is copy.engine((0, 10, 2))
    assert rebuilt.project.files == run.scope


def test_the_facts_of_a_file_are_arguments_not_options(tmp_path):
    path = tmp_path / "m.py"
    source = b"import jax\n"
    run = Run(Options())
    assert check_file(run, path, source, lines=frozenset()) == check_file(
        run, path, source
    )
    assert not hasattr(run.options, "changed_lines")
    assert not hasattr(run.options, "evidence")
