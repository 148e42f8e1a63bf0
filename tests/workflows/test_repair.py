"""`jaxfix repair`, the recorder and `--evidence`, proven by running real programs under real JAX.

jaxfix runs from this interpreter (jax 0.10.2); the repaired command runs under the tier's
interpreter. The command sees a user's own `sitecustomize` that leaves a mark and hides jaxfix
(`import jaxfix` fails there), so what records the run is only the injected recorder.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods.test_real_jax import JAX_VERSIONS, interpreters
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.evidence.facts import Evidence
from jaxfix.evidence.recording import RecordingDir
from jaxfix.evidence.records import read_evidence
from jaxfix.settings.options import Options

pytestmark = pytest.mark.jax

ROOT = Path(__file__).resolve().parents[2]
PROJECT = Path(__file__).parents[1] / "repair_projects" / "trainer"
NEXT = JAX_VERSIONS[-1]
# In the recorded command's processes only (jaxfix itself runs with the same PYTHONPATH).
USER_SITECUSTOMIZE = """\
import os, sys
if "JAXFIX_RECORD" in os.environ:
    sys.modules["jaxfix"] = None  # the command's interpreter has no jaxfix
    with open(os.environ["USER_SITE_MARK"], "a") as mark:
        mark.write("ran\\n")
"""
_SITES = {
    ("JAX001", "trainer/export.py"),
    ("JAX002", "trainer/stages.py"),
    ("JAX003", "trainer/gather.py"),
}


def python(version: str) -> str:
    if version not in interpreters():
        pytest.skip(
            f"LOUD SKIP: no interpreter with jax {version} (set JAXFIX_JAX_PYTHONS)"
        )
    return interpreters()[version]


def command_env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "user-site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(USER_SITECUSTOMIZE)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JAXFIX_RECORD", "PYTEST_"))
    }
    return {
        **env,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]),
        "USER_SITE_MARK": str(tmp_path / "mark"),
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
        "JAX_PLATFORMS": "cpu",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def recorded_run(
    interpreter: str, program: Path, cwd: Path
) -> tuple[subprocess.CompletedProcess[str], bytes]:
    """`interpreter program` run once under the recorder from `cwd`: the finished process and
    the evidence it recorded."""
    recording = RecordingDir()
    try:
        recording.write_patterns()
        done = subprocess.run(
            [interpreter, str(program)],
            cwd=cwd,
            env=recording.env(1, command_env(cwd)),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        return done, recording.evidence(1).read_bytes()
    finally:
        recording.close()


def project(tmp_path: Path) -> Path:
    return copied(PROJECT, tmp_path / "trainer")


def copied(project: Path, to: Path) -> Path:
    """A copy of the repair project at `project`, made at `to`, without bytecode."""
    return Path(
        shutil.copytree(project, to, ignore=shutil.ignore_patterns("__pycache__"))
    )


def repair_with_pytest(
    tree: Path, tmp_path: Path, python: str, *flags: str
) -> tuple[int, dict, str]:
    """`jaxfix repair FLAGS -- PYTHON -m pytest -q` in `tree` (jaxfix_repair's answer)."""
    return jaxfix_repair(
        tree,
        tmp_path,
        *flags,
        "--",
        python,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
    )


def jaxfix_repair(
    tree: Path, tmp_path: Path, *args: str, timeout: float = 600
) -> tuple[int, dict, str]:
    """`jaxfix repair --format json ARGS` in `tree`: exit code, the JSON report, stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "repair", "--format", "json", *args],
        cwd=tree,
        env=command_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.stdout.strip(), done.stderr[-3000:]
    return done.returncode, json.loads(done.stdout), done.stderr


def snapshot(tree: Path) -> dict[str, bytes]:
    return {
        p.relative_to(tree).as_posix(): p.read_bytes()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def changed(before: dict[str, bytes], tree: Path) -> set[str]:
    after = snapshot(tree)
    return {
        name
        for name in before.keys() | after.keys()
        if before.get(name) != after.get(name)
    }


def check_green(
    report: dict, code: int, before: dict[str, bytes], tree: Path, tmp_path: Path
) -> None:
    assert code == 0, report
    assert report["passed"] and report["stop"] == "passed"
    assert {(f["code"], f["path"]) for f in report["fixed"]} == _SITES
    assert report["left"] == [] and report["other_failures"] == []
    assert changed(before, tree) == {path for _, path in _SITES}
    assert (tmp_path / "mark").read_text().count("ran") >= len(
        report["rounds"]
    )  # the user's sitecustomize ran every time


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_pytest_suite_made_green_by_one_repair(tmp_path, version):
    tree = project(tmp_path)
    before = snapshot(tree)
    code, report, _ = repair_with_pytest(
        tree, tmp_path, python(version), "--unsafe-fixes"
    )
    check_green(report, code, before, tree, tmp_path)
    first = report["rounds"][0]
    assert first["exit_code"] == 1
    assert {r["code"] for r in first["raised"]} == {"JAX001", "JAX002", "JAX003"}
    # the JAX002 error test_resizing_is_refused expects inside pytest.raises is never recorded
    assert all(r["path"].startswith("trainer/") for r in first["raised"]), first[
        "raised"
    ]
    env = {**command_env(tmp_path), "JAXFIX_RECORD": str(tmp_path / "unused.jsonl")}
    done = subprocess.run(
        [python(version), "-c", "import jaxfix"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (
        done.returncode != 0 and "jaxfix" in done.stderr
    )  # the command's interpreter has no jaxfix


def python_without_jaxfix(version: str, where: Path) -> str:
    """A virtualenv of the tier's own Python that sees every package of the tier's environment
    but jaxfix (linked one by one from its site-packages), so `import jaxfix` truly fails there."""
    tier = Path(python(version))
    config = tier.parent.parent / "pyvenv.cfg"
    if not config.exists():
        pytest.skip(f"{tier} is not a virtualenv's interpreter")
    home = next(
        line.split("=", 1)[1].strip()
        for line in config.read_text().splitlines()
        if line.startswith("home")
    )
    base = next(Path(home).glob("python3.1[0-9]"), None)
    site = next(tier.parent.parent.glob("lib/python3.*/site-packages"))
    if base is None:
        pytest.skip(f"no base interpreter under {home}")
    subprocess.run(
        [str(base), "-m", "venv", "--without-pip", str(where)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    farm = where / "packages"
    farm.mkdir()
    for entry in site.iterdir():
        if not entry.name.startswith("jaxfix"):
            (farm / entry.name).symlink_to(entry)
    (next(where.glob("lib/python3.*/site-packages")) / "tier.pth").write_text(
        f"{farm}\n"
    )
    return str(where / "bin" / "python")


def test_repair_under_an_interpreter_that_has_no_jaxfix(tmp_path):
    """jaxfix from this interpreter with the worktree on sys.path only for itself: the command's
    interpreter (jax 0.12.0.1) has no jaxfix, installed or on PYTHONPATH."""
    bare = python_without_jaxfix(NEXT, tmp_path / "bare-venv")
    env = {**command_env(tmp_path), "PYTHONPATH": ""}
    probe = subprocess.run(
        [bare, "-c", "import jax, jaxfix"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.returncode == 1 and "No module named 'jaxfix'" in probe.stderr, (
        probe.stderr
    )
    tree = project(tmp_path)
    before = snapshot(tree)
    start = f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.argv[0] = 'jaxfix'; from jaxfix.cli.main import main; main()"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            start,
            "repair",
            "--unsafe-fixes",
            "--format",
            "json",
            "--",
            bare,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = json.loads(done.stdout or "{}")
    assert done.returncode == 0 and report["passed"], done.stderr[-3000:]
    assert {(f["code"], f["path"]) for f in report["fixed"]} == _SITES
    assert changed(before, tree) == {path for _, path in _SITES}


@pytest.mark.parametrize(
    "entry",
    [["run_all.py"], ["-m", "unittest", "checks.units"]],
    ids=["script", "unittest"],
)
def test_script_and_unittest_made_green(tmp_path, entry):
    tree = project(tmp_path)
    before = snapshot(tree)
    code, report, _ = jaxfix_repair(
        tree, tmp_path, "--unsafe-fixes", "--", python(NEXT), *entry
    )
    check_green(report, code, before, tree, tmp_path)
    # a script stops at its first error: one round per error; the unittest run shows all three at once
    assert len(report["rounds"]) == (4 if entry == ["run_all.py"] else 2)
    assert all(
        r["path"] != "checks/units.py" for r in report["rounds"][0]["raised"]
    )  # assertRaisesRegex's JAX002


def test_max_rounds_is_honoured(tmp_path):
    tree = project(tmp_path)
    code, report, _ = jaxfix_repair(
        tree,
        tmp_path,
        "--unsafe-fixes",
        "--max-rounds",
        "1",
        "--",
        python(NEXT),
        "run_all.py",
    )
    assert code == 1 and report["stop"] == "max-rounds"
    assert [f["code"] for f in report["fixed"]] == ["JAX001"]
    assert [(x["code"], x["path"]) for x in report["left"]] == [
        ("JAX002", "trainer/stages.py")
    ]
    assert len(report["rounds"]) == 2


def test_dry_run_writes_nothing_and_shows_the_diffs(tmp_path):
    tree = project(tmp_path)
    before = snapshot(tree)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "repair",
            "--unsafe-fixes",
            "--dry-run",
            "--color",
            "never",
            "--",
            python(NEXT),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=tree,
        env=command_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert changed(before, tree) == set()
    assert (
        '+        with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):'
        in done.stdout
    )  # the rounds, as ruff: stdout
    assert "would fix JAX003 at trainer/gather.py:13" in done.stdout
    assert "sites with a fix shown (dry run)" in done.stderr  # the summary


UNFIXABLE = """\
import os
import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((int(os.environ.get("STAGE_DATA", "4")), 4), ("data", "model"))):
        pass
"""


def test_a_round_that_fixes_nothing_stops_the_loop_with_its_reason(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "stage.py").write_text(UNFIXABLE)
    before = snapshot(tmp_path / "app")
    code, report, _ = jaxfix_repair(
        tmp_path / "app", tmp_path, "--unsafe-fixes", "--", python(NEXT), "stage.py"
    )
    assert code == 1 and report["stop"] == "nothing-fixed", report
    assert report["reason"].startswith("round 1 fixed nothing")
    [left] = report["left"]
    assert (left["code"], left["path"], left["line"]) == (
        "JAX002",
        "stage.py",
        6,
    ) and left["detail"]
    assert changed(before, tmp_path / "app") == set() and len(report["rounds"]) == 1


THREAD_RAISES = """\
import threading
from jax.sharding import AbstractMesh, use_abstract_mesh


def enter():
    with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass


thread = threading.Thread(target=enter, name="worker")
thread.start()
thread.join()
"""


def test_an_error_raised_in_a_run_that_passed_is_counted_as_left(tmp_path):
    """The command exits 0 while a thread raised JAX002: the round's line and the summary agree."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "prog.py").write_text(THREAD_RAISES)
    code, report, _ = jaxfix_repair(
        tmp_path / "app", tmp_path, "--", python(NEXT), "prog.py"
    )
    assert code == 0 and report["passed"], report
    [raised] = report["rounds"][0]["raised"]
    [left] = report["left"]
    assert (
        (left["code"], left["path"], left["line"])
        == (
            raised["code"],
            raised["path"],
            raised["line"],
        )
        == ("JAX002", "prog.py", 7)
    ), report
    assert "raised in a run that passed" in left["detail"]
    done = subprocess.run(
        [sys.executable, "-m", "jaxfix", "repair", "--", python(NEXT), "prog.py"],
        cwd=tmp_path / "app",
        env=command_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    assert "raised JAX002 x1" in output, output
    [row] = [line for line in output.splitlines() if "sites left" in line]
    assert row.split("sites left")[1].strip(" │|").strip() == "1", output


def test_other_failures_are_named_as_not_jaxfixs(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "test_other.py").write_text(
        "import jax\n\n\ndef test_sum():\n    assert jax.numpy.arange(3).sum() == 4, 'wrong sum'\n"
    )
    code, report, stderr = jaxfix_repair(
        tmp_path / "app",
        tmp_path,
        "--",
        python(NEXT),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
    )
    assert code == 1 and report["stop"] == "not-ours"
    [failure] = report["other_failures"]
    assert (
        failure["test"] == "test_other.py::test_sum"
        and failure["exception"] == "AssertionError"
    )
    assert "not jaxfix's" in stderr


def test_a_command_failing_before_jax_or_not_found_is_one_line(tmp_path):
    code, report, stderr = jaxfix_repair(
        tmp_path, tmp_path, "--", sys.executable, "-c", "raise SystemExit(3)"
    )
    assert (
        code == 1
        and report["stop"] == "before-jax"
        and "before any of its processes imported JAX" in report["reason"]
    )
    code, report, stderr = jaxfix_repair(
        tmp_path, tmp_path, "--", "no-such-command-jaxfix-test"
    )
    assert code == 2 and report["stop"] == "not-started"
    assert [
        line
        for line in stderr.splitlines()
        if "no-such-command-jaxfix-test" in line and "not found" in line
    ]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return (
        Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    )  # a zombie has ended


def _assert_ended(pid: int, why: str) -> None:
    """The process ends within 5 s (its group was signalled; give it time to go)."""
    for _ in range(50):
        if not _alive(pid):
            break
        time.sleep(0.1)
    assert not _alive(pid), why


@pytest.mark.parametrize("ending", ["timeout", "passes"])
def test_the_commands_process_group_is_ended(tmp_path, ending):
    pid_file = tmp_path / "background.pid"
    script = f"sleep 300 & echo $! > {pid_file}; " + (
        "wait" if ending == "timeout" else "exit 0"
    )
    started = time.monotonic()
    code, report, _ = jaxfix_repair(
        tmp_path,
        tmp_path,
        *(["--timeout", "1"] if ending == "timeout" else []),
        "--",
        "sh",
        "-c",
        script,
    )
    assert time.monotonic() - started < 60
    assert code == (1 if ending == "timeout" else 0)
    assert report["rounds"][0]["timed_out"] is (ending == "timeout")
    _assert_ended(
        int(pid_file.read_text()), "the command's background process survived"
    )


FORGER = """\
import json, os
records = [
    # a file outside the tree
    {{"kind": "error", "code": "JAX002", "frames": [{{"path": {outside!r}, "line": 1, "source": "x = 1"}}]}},
    # a file in the tree at a line with no JAX call
    {{"kind": "error", "code": "JAX002", "frames": [{{"path": os.path.abspath("victim.py"), "line": 1, "source": "x = 1"}}]}},
    # a line whose code is not what the record says
    {{"kind": "error", "code": "JAX001", "frames": [{{"path": os.path.abspath("victim.py"), "line": 2, "source": "y = jax.jit(f).lower(z)"}}]}},
]
message = ("use_abstract_mesh cannot change the size of the mesh. Got new mesh: AbstractMesh('a': 16, axis_types=(Explicit,)) "
           "with size=16 and prev mesh: AbstractMesh('a': 2, axis_types=(Explicit,)) with size=2")
with open(os.environ["JAXFIX_RECORD"], "a") as out:
    out.write("not json\\n")
    for record in records:
        out.write(json.dumps({{"schema": "jaxfix-evidence/1", "message": message, **record}}) + "\\n")
import jax
raise SystemExit(1)
"""


def test_evidence_forged_by_the_program_changes_nothing(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    (app / "victim.py").write_text("x = 1\ny = 2\n")
    (app / "forger.py").write_text(FORGER.format(outside=str(outside)))
    command_env(tmp_path)  # writes the user's sitecustomize
    before = snapshot(tmp_path)
    code, report, _ = jaxfix_repair(
        app, tmp_path, "--unsafe-fixes", "--", python(NEXT), "forger.py"
    )
    assert code == 1 and report["stop"] in ("nothing-fixed", "nothing-new"), report
    assert report["fixed"] == []
    assert changed(before, tmp_path) == {"mark"}
    problems = [r["problem"] for r in report["rounds"][0]["raised"]]
    assert any("has changed since the run" in (p or "") for p in problems), problems
    assert any(
        "none of its frames is in a file under the given paths" in (p or "")
        for p in problems
    ), problems


NESTED_STAGE = """\
from jax.sharding import AbstractMesh, use_abstract_mesh

with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        pass
"""
# Makes stage.py a symlink to a file outside the tree (same text), then runs it: it raises there.
SWAPPER = """\
import os, runpy
if not os.path.islink("stage.py"):
    os.replace("stage.py", {outside!r})
    os.symlink({outside!r}, "stage.py")
runpy.run_path("stage.py")
"""


def test_a_file_the_command_makes_a_symlink_out_of_the_tree_is_not_written(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (tmp_path / "elsewhere").mkdir()
    outside = (
        tmp_path / "elsewhere" / "stage.py"
    )  # the tree's name: the frames still match
    (app / "stage.py").write_text(NESTED_STAGE)
    (app / "swap.py").write_text(SWAPPER.format(outside=str(outside)))
    code, report, stderr = jaxfix_repair(
        app, tmp_path, "--unsafe-fixes", "--", python(NEXT), "swap.py"
    )
    assert (app / "stage.py").is_symlink(), report
    assert outside.read_text() == NESTED_STAGE, report  # never rewritten
    assert report["fixed"] == [] and code == 1, report
    assert "a symbolic link leads out of the tree; not written" in stderr, stderr


# A user's sitecustomize that chains as the recorder's does: drops its own directory, runs the next.
CHAINING_SITECUSTOMIZE = """\
import importlib.util, os, sys
from importlib.machinery import PathFinder
with open(os.environ["USER_SITE_MARK"], "a") as mark:
    mark.write("ran\\n")
here = os.path.dirname(os.path.abspath(__file__))
rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
spec = PathFinder.find_spec("sitecustomize", rest)
if spec is not None:
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
"""


def test_the_sitecustomize_chain_runs_once_in_a_process(tmp_path):
    """A user's chaining sitecustomize, alone and under a nested recorded run (`jaxfix repair --
    jaxfix repair -- ...`): it runs exactly once, the recorder starts, nothing recurses."""
    site = tmp_path / "user-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CHAINING_SITECUSTOMIZE)
    mark = tmp_path / "mark"
    base = {**os.environ, "PYTHONPATH": str(site), "USER_SITE_MARK": str(mark)}
    outer, inner = RecordingDir(), RecordingDir()
    try:
        for env in (outer.env(1, base), inner.env(1, outer.env(1, base))):
            mark.write_text("")
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import jaxfix_record; print(jaxfix_record._settings[0])",
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
            assert done.stdout.strip() == env["JAXFIX_RECORD"]
            assert mark.read_text() == "ran\n"
    finally:
        outer.close()
        inner.close()


RECORDED = """\
import threading
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P, use_abstract_mesh


def enter():
    with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass


try:
    enter()
except ValueError:
    pass  # caught: ends nothing, never recorded
thread = threading.Thread(target=enter, name="worker")
thread.start()
thread.join()
spec = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(AbstractMesh((2,), ("x",)), P("x")))
ok = jax.jit(jnp.sin); lowered = jax.jit(jnp.cos).lower(spec)
"""


def test_recorder_records_threads_and_the_program_through_a_shell_with_columns(
    tmp_path,
):
    program = tmp_path / "prog.py"
    program.write_text(RECORDED)
    recording = RecordingDir()
    try:
        recording.write_patterns()
        env = recording.env(1, command_env(tmp_path))
        subprocess.run(
            ["sh", "-c", f"'{python(NEXT)}' '{program}'"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=300,
            check=False,
        )
        data = recording.evidence(1).read_bytes()
    finally:
        recording.close()
    lines = [json.loads(line) for line in data.splitlines()]
    thread, program_end = [r for r in lines if r["kind"] == "error"]
    assert (thread["ended"], thread["test"], thread["code"]) == (
        "thread",
        "worker",
        "JAX002",
    )
    assert (program_end["ended"], program_end["code"]) == ("program", "JAX001")
    assert {thread["jax_version"], program_end["jax_version"]} == {NEXT}
    assert thread["meshes"]["new"]["axis_sizes"] == [16, 4] and thread["meshes"][
        "prev"
    ]["axis_sizes"] == [2, 4]  # JAX's locals
    with_frame = [f for f in thread["frames"] if f["path"] == str(program)][-1]
    assert (with_frame["line"], with_frame["column"]) == (
        9,
        8,
    )  # a `with`: Python's span is the whole statement
    call = [f for f in program_end["frames"] if f["path"] == str(program)][-1]
    assert (call["line"], call["column"], call["end_column"]) == (
        21,
        33,
        61,
    )  # the call that raised, not the line
    assert call["segment"] == "jax.jit(jnp.cos).lower(spec)"
    assert [r["jax_version"] for r in lines if r["kind"] == "process"] == [NEXT]
    reading = read_evidence(data, [program])
    by_code = {e.code: e for e in reading.evidence[program]}
    assert (by_code["JAX002"].line, by_code["JAX002"].columns) == (9, None)
    assert (
        by_code["JAX001"].line,
        by_code["JAX001"].columns,
        by_code["JAX001"].jax_version,
    ) == (21, (33, 61), (0, 12, 0, 1))
    assert (
        by_code["JAX001"].agreed["context"].is_empty
    )  # from the message ("Got context mesh: AbstractMesh((), ...)")


STAGE_TEST = """\
from jax.sharding import AbstractMesh, use_abstract_mesh


def test_stage():
    with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass
"""


# Another process of the same recording run (as xdist's workers are): a pytest a test starts.
SECOND_PROCESS_TEST = """\
import subprocess, sys


def test_second_process():
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "jaxfix.record", "-p", "no:cacheprovider", "test_a_stage.py"],
        capture_output=True, timeout=300,
    )
"""
# A test that makes the evidence file a symlink to elsewhere during the run, then fails.
SWAP_TEST = """\
import os
from jax.sharding import AbstractMesh, use_abstract_mesh


def test_swap():
    os.replace("jaxfix-evidence.jsonl", "kept.jsonl")
    os.symlink("later-target.jsonl", "jaxfix-evidence.jsonl")
    with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            pass
"""


def test_the_pytest_plugin_starts_its_file_fresh_and_follows_no_symlink(tmp_path):
    """A checkout's own `jaxfix-evidence.jsonl` (here a symlink to elsewhere holding a forged
    record) is neither followed nor kept; the run's processes all append to the one new file;
    a symlink put there during the run is not followed either."""
    forged = '{"schema": "jaxfix-evidence/1", "kind": "failure", "pid": 1}\n'
    (tmp_path / "outside.jsonl").write_text(forged)
    (tmp_path / "jaxfix-evidence.jsonl").symlink_to(tmp_path / "outside.jsonl")
    (tmp_path / "test_a_stage.py").write_text(STAGE_TEST)
    (tmp_path / "test_b_second.py").write_text(SECOND_PROCESS_TEST)
    (tmp_path / "test_c_swap.py").write_text(SWAP_TEST)
    env = {**command_env(tmp_path), "PYTHONPATH": str(ROOT)}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "jaxfix.record"]
        + ["-p", "no:cacheprovider", "test_a_stage.py", "test_b_second.py"]
        + ["test_c_swap.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 1, ran.stdout[-3000:]
    assert (tmp_path / "outside.jsonl").read_text() == forged
    assert not (tmp_path / "later-target.jsonl").exists()
    kept = tmp_path / "kept.jsonl"
    assert not kept.is_symlink(), ran.stdout[-3000:]
    records = [json.loads(line) for line in kept.read_text().splitlines()]
    errors = [(r["code"], r["test"]) for r in records if r["kind"] == "error"]
    assert errors == [("JAX002", "test_a_stage.py::test_stage")] * 2, records
    assert {r["kind"] for r in records} == {"error", "process"}  # nothing forged
    assert len({r["pid"] for r in records}) == 2  # the second process appended


def test_evidence_flag_applies_a_file_recorded_by_the_pytest_plugin(
    tmp_path, monkeypatch
):
    """`pytest -p jaxfix.record` (jaxfix and its dependencies installed where the tests run: this
    interpreter), then `jaxfix --evidence`; the fix targets the JAX version the run recorded."""
    (tmp_path / "test_stage.py").write_text(STAGE_TEST)
    env = {
        **command_env(tmp_path),
        "PYTHONPATH": str(ROOT),
        "JAXFIX_RECORD": str(tmp_path / "evidence.jsonl"),
    }
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "jaxfix.record",
            "-p",
            "no:cacheprovider",
            "test_stage.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 1 and (tmp_path / "evidence.jsonl").exists(), ran.stdout[
        -3000:
    ]
    checkout = (
        tmp_path / "elsewhere" / "checkout"
    )  # another machine's tree: paths mapped by their ending
    checkout.mkdir(parents=True)
    shutil.copy(tmp_path / "test_stage.py", checkout)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "--evidence",
            str(tmp_path / "evidence.jsonl"),
            "--unsafe-fixes",
            "--diff",
            ".",
        ],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (
        '+        with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):'
        in done.stdout
    ), done.stderr
    reading = read_evidence(
        (tmp_path / "evidence.jsonl").read_bytes(), [tmp_path / "test_stage.py"]
    )
    recorded = tuple(
        int(p) for p in JAX_VERSIONS[0].split(".")
    )  # the JAX of the interpreter that ran the tests
    # check_file targets the JAX version that raised there, whatever the options say
    stage = tmp_path / "test_stage.py"
    asked = []
    real_engine = Run.engine

    def engine(run, version):
        asked.append(version)
        return real_engine(run, version)

    monkeypatch.setattr(Run, "engine", engine)
    run = Run(Options(jax_version=(0, 12), select=("JAX002",)))
    check_file(run, stage, stage.read_bytes(), evidence=reading.evidence[stage])
    check_file(run, stage, stage.read_bytes())
    assert asked == [recorded, (0, 12)]
    assert isinstance(reading.evidence[tmp_path / "test_stage.py"][0], Evidence)


def _repair_sleeping(tmp_path: Path, pid_file: Path) -> subprocess.Popen[str]:
    """`jaxfix repair` of a command that leaves a process in the background and waits for it."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "repair",
            "--",
            "sh",
            "-c",
            f"sleep 300 & echo $! > {pid_file}; wait",
        ],
        cwd=tmp_path,
        env=command_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _ended_by(jaxfix: subprocess.Popen[str], signum: int, pid: int) -> str:
    """jaxfix's stderr once `signum` (already sent) has ended it. If it does not end, it is
    killed (its watchdog then ends the command's group) and the test fails: no run of this test
    leaves a process behind."""
    try:
        _, stderr = jaxfix.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        jaxfix.kill()
        _, stderr = jaxfix.communicate()
        pytest.fail(f"jaxfix still ran 120 s after {signal.Signals(signum).name}")
    finally:
        if jaxfix.poll() is None:
            jaxfix.kill()
            jaxfix.wait()
        if pid and _alive(pid):
            os.kill(pid, signal.SIGKILL)
    return stderr


def _wait_for(ready: Callable[[], bool], jaxfix: subprocess.Popen[str]) -> None:
    for _ in range(1200):
        if ready() or jaxfix.poll() is not None:
            return
        time.sleep(0.1)
    jaxfix.kill()
    jaxfix.communicate()
    pytest.fail("jaxfix did not get there in 120 s")


def _pid(pid_file: Path) -> int:
    text = pid_file.read_text().strip() if pid_file.exists() else ""
    return int(text) if text.isdigit() else 0


def test_ctrl_c_ends_the_commands_group_and_jaxfix(tmp_path):
    pid_file = tmp_path / "background.pid"
    jaxfix = _repair_sleeping(tmp_path, pid_file)
    _wait_for(lambda: _pid(pid_file) > 0, jaxfix)
    jaxfix.send_signal(signal.SIGINT)
    stderr = _ended_by(jaxfix, signal.SIGINT, _pid(pid_file))
    assert jaxfix.returncode == 128 + signal.SIGINT, stderr
    assert "interrupted" in stderr
    _assert_ended(_pid(pid_file), "the command's background process survived Ctrl-C")


def _waiting_for_a_child(pid: int) -> bool:
    """The main thread is blocked in `waitpid` (the kernel's `do_wait`)."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text().strip() == "do_wait"
    except OSError:
        return False


@functools.cache
def _wchan_tells_waiting() -> bool:
    """Whether this kernel shows a process blocked in `waitpid` as `do_wait` (some hide it)."""
    waiter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess; subprocess.Popen(['sleep', '5']).wait()",
        ]
    )
    try:
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            if _waiting_for_a_child(waiter.pid):
                return True
            time.sleep(0.05)
        return False
    finally:
        waiter.kill()
        waiter.wait()


def _other_threads(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid]
    except FileNotFoundError:
        return []


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
@pytest.mark.parametrize(
    ("signum", "point"),
    [
        (signal.SIGINT, "thread started"),
        (signal.SIGINT, "command waited for"),
        (signal.SIGTERM, "command waited for"),
    ],
)
def test_a_signal_another_thread_takes_still_ends_jaxfix(tmp_path, signum, point):
    """The kernel may hand a process's signal to any thread not blocking it: `kill` of a thread's
    id prefers that thread. While the command runs, jaxfix's main thread is blocked waiting for
    it, and only the main thread runs Python's handlers: a signal another thread took was lost,
    and jaxfix ran on (issue 44). Sent as jaxfix's second thread starts (while it does jaxfix's
    start-up work) and once the main thread waits for the command."""
    if point == "command waited for" and not _wchan_tells_waiting():
        pytest.skip(
            "this kernel does not show a process waiting for a child in /proc/PID/wchan"
        )
    pid_file = tmp_path / "background.pid"
    jaxfix = _repair_sleeping(tmp_path, pid_file)
    _wait_for(
        lambda: (
            bool(_other_threads(jaxfix.pid))
            and (point == "thread started" or _waiting_for_a_child(jaxfix.pid))
        ),
        jaxfix,
    )
    threads = _other_threads(jaxfix.pid)
    assert threads, "jaxfix ended before the signal"
    os.kill(threads[0], signum)
    _wait_for(lambda: _pid(pid_file) > 0, jaxfix)
    stderr = _ended_by(jaxfix, signum, _pid(pid_file))
    assert jaxfix.returncode == 128 + signum, stderr
    assert f"interrupted by {signal.Signals(signum).name}" in stderr
    if _pid(pid_file):
        _assert_ended(_pid(pid_file), "the command's background process survived")


SUBTESTS = """\
import unittest
from jax.sharding import AbstractMesh, use_abstract_mesh


class Stages(unittest.TestCase):
    def test_sizes(self):
        for data in (2, 16):
            with self.subTest(data=data):
                with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
                    with use_abstract_mesh(AbstractMesh((data, 4), ("data", "model"))):
                        pass

    def test_sum(self):
        self.assertEqual(1 + 1, 3)
"""


def test_recorder_records_unittest_subtests_and_failures(tmp_path):
    (tmp_path / "stages_check.py").write_text(SUBTESTS)
    recording = RecordingDir()
    try:
        recording.write_patterns()
        subprocess.run(
            [python(NEXT), "-m", "unittest", "stages_check"],
            cwd=tmp_path,
            env=recording.env(1, command_env(tmp_path)),
            capture_output=True,
            timeout=300,
            check=False,
        )
        lines = [
            json.loads(line) for line in recording.evidence(1).read_text().splitlines()
        ]
    finally:
        recording.close()
    found = sorted(
        (r["kind"], r.get("code"), r.get("test"))
        for r in lines
        if r["kind"] != "process"
    )
    assert found == [
        ("error", "JAX002", "stages_check.Stages.test_sizes (data=16)"),
        ("failure", None, "stages_check.Stages.test_sum"),
    ]


CHECK_REP = """import jax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))
try:
    {"a": 1}.update(1)  # another TypeError, caught: ends nothing
except TypeError:
    pass
sum_all = jax.shard_map(lambda b: b, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_rep=False)
"""


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_an_error_raised_as_a_type_error_is_recorded_and_read_from_its_log(
    tmp_path, version
):
    """Rules whose error is no ValueError (`Rule.error`): the recorder knows JAX005's TypeError
    by its message and type, and `--from-log` reads the traceback the run printed."""
    from click.testing import CliRunner

    from jaxfix.cli.main import cli

    program = tmp_path / "prog.py"
    program.write_text(CHECK_REP)
    done, data = recorded_run(python(version), program, tmp_path)
    (error,) = [r for r in map(json.loads, data.splitlines()) if r["kind"] == "error"]
    assert (error["code"], error["exception"]) == ("JAX005", "TypeError")
    reading = read_evidence(data, [program])
    assert [(e.code, e.line) for e in reading.evidence[program]] == [("JAX005", 9)]
    result = CliRunner().invoke(
        cli,
        ["--from-log", "-", "--check", "--no-cache", str(tmp_path)],
        input=done.stderr,
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    assert f"{program}:9:" in result.output and "JAX005" in result.output


# Each mesh-kind rule's raising fixture and the line that raises there.
MESH_KIND_CASES = {
    "JAX007": ("eval_shape_under_concrete_mesh.py", 11),
    "JAX008": ("set_mesh_of_abstract_mesh.py", 11),
    "JAX009": ("shaped_array_on_make_mesh.py", 13),
}


@pytest.mark.parametrize("opaque", [False, True], ids=["seen", "opaque"])
@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize("code", sorted(MESH_KIND_CASES))
def test_a_mesh_of_the_wrong_kind_is_recorded_and_read_from_its_log(
    tmp_path, version, code, opaque
):
    """JAX007-JAX009: the recorder names the rule by its message under real JAX, `--from-log`
    reads the traceback the run printed, and the fix it writes is the static one; where the
    mesh is made out of the engine's sight (`getattr` of a name joined at run time), only the log tells
    its kind, and the same fix is written once."""
    from click.testing import CliRunner

    from jaxfix.cli.main import cli

    name, line = MESH_KIND_CASES[code]
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / code
    program = tmp_path / name

    def made(text: str) -> str:
        return (
            text.replace("jax.make_mesh(", 'getattr(jax, "".join(("make_", "mesh")))(')
            if opaque
            else text
        )

    program.write_text(made((fixtures / name).read_text()))
    done, data = recorded_run(python(version), program, tmp_path)
    (error,) = [r for r in map(json.loads, data.splitlines()) if r["kind"] == "error"]
    assert (error["code"], error["exception"]) == (code, "ValueError")
    reading = read_evidence(data, [program])
    assert [(e.code, e.line) for e in reading.evidence[program]] == [(code, line)]
    checked = CliRunner().invoke(
        cli,
        ["--from-log", "-", "--check", "--no-cache", str(tmp_path)],
        input=done.stderr,
        catch_exceptions=False,
    )
    assert checked.exit_code == 1, checked.output
    assert f"{program}:{line}:" in checked.output and code in checked.output
    static = CliRunner().invoke(
        cli, ["--check", "--no-cache", str(tmp_path)], catch_exceptions=False
    )
    assert (code in static.output) is not opaque, static.output
    CliRunner().invoke(
        cli,
        ["--from-log", "-", "--no-cache", str(tmp_path)],
        input=done.stderr,
        catch_exceptions=False,
    )
    fixed = fixtures / name.replace(".py", ".fixed.py")
    assert program.read_text() == made(fixed.read_text())


# Each other-mesh rule's raising fixture, the line that raises there, and its options.
SIZE_CASES = {
    "JAX010": ("committed_array_beside_hand_built_mesh.py", 16, ["--unsafe-fixes"]),
    "JAX011": ("zeros_out_sharding_on_other_mesh.py", 14, []),
    "JAX012": ("lowered_for_two_platforms.py", 22, ["--unsafe-fixes"]),
}


@pytest.mark.parametrize("version", JAX_VERSIONS)
@pytest.mark.parametrize("code", sorted(SIZE_CASES))
def test_a_mesh_of_another_size_or_kind_is_recorded_and_read_from_its_log(
    tmp_path, version, code
):
    """JAX010-JAX012: the recorder names the rule by its message under real JAX,
    `--from-log` reads the traceback the run printed, reports the raising line and writes the
    static fix there."""
    from click.testing import CliRunner

    from jaxfix.cli.main import cli
    from jaxfix.codemods import RULES

    name, line, options = SIZE_CASES[code]
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / code
    program = tmp_path / name
    program.write_text((fixtures / name).read_text())
    done, data = recorded_run(python(version), program, tmp_path)
    (error,) = [r for r in map(json.loads, data.splitlines()) if r["kind"] == "error"]
    assert (error["code"], error["exception"]) == (code, RULES[code].error)
    reading = read_evidence(data, [program])
    assert [(e.code, e.line) for e in reading.evidence[program]] == [(code, line)]
    checked = CliRunner().invoke(
        cli,
        ["--from-log", "-", "--check", "--no-cache", *options, str(tmp_path)],
        input=done.stderr,
        catch_exceptions=False,
    )
    assert checked.exit_code == 1, checked.output
    assert f"{program}:{line}:" in checked.output and code in checked.output
    CliRunner().invoke(
        cli,
        ["--from-log", "-", "--no-cache", *options, str(tmp_path)],
        input=done.stderr,
        catch_exceptions=False,
    )
    fixed = fixtures / name.replace(".py", ".fixed.py")
    expected = fixed if fixed.exists() else fixtures / name  # a report-only rule's
    assert program.read_text() == expected.read_text()


# A program run with warnings made errors: its deprecated import raises JAX101's warning.
EXPERIMENTAL_SHARD_MAP = """\
import jax
import numpy as np
from jax.experimental.shard_map import shard_map
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
x = jax.device_put(np.arange(8.0), NamedSharding(mesh, P("x")))
total = shard_map(lambda b: jax.lax.psum(b.sum(), "x"), mesh=mesh, in_specs=P("x"), out_specs=P())(x)
print("total", total)
"""


@pytest.mark.parametrize("version", JAX_VERSIONS)
def test_a_deprecation_made_an_error_is_fixed_at_the_import_that_warned(
    tmp_path, version
):
    """`python -W error::DeprecationWarning`: the import raises the warning (line 3), the
    rule's one fix rewrites that import with the call (line 8), and repair counts the site as
    fixed by it; the next run passes."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tree / "prog.py").write_text(EXPERIMENTAL_SHARD_MAP)
    code, report, err = jaxfix_repair(
        tree,
        tmp_path,
        "--select",
        "ALL",
        "--",
        python(version),
        "-W",
        "error::DeprecationWarning",
        "prog.py",
    )
    assert code == 0, err[-3000:]
    assert [(f["code"], f["line"]) for f in report["fixed"]] == [("JAX101", 3)]
    fixed = (tree / "prog.py").read_text()
    assert "jax.experimental" not in fixed and "jax.shard_map(" in fixed
