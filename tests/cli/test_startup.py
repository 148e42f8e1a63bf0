"""What a run imports: rich, importlib.metadata, multiprocessing, pathspec, the notebook code,
tomllib and ctypes only once they are needed, and every command still works without them
imported up front (each case in a fresh process: this one has imported everything already)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snippets import REPORTED, VIOLATION

ROOT = Path(__file__).resolve().parents[2]
LAZY = (
    "rich",
    "importlib.metadata",
    "multiprocessing",
    "jaxfix.check.pool",
    "pathspec",
    "libcst",
    "jaxfix.sources.notebook",
    "tomllib",
    "ctypes",
)

_RUN = textwrap.dedent("""
    import json, sys
    from jaxfix.cli.main import main
    lazy = json.loads(sys.argv[1])
    sys.argv = ["jaxfix", *sys.argv[2:]]
    try:
        main()
    except SystemExit as exit:
        code = exit.code
    sys.stderr.write("\\n" + json.dumps({"exit": code, "imported": [m for m in lazy if m in sys.modules]}))
""")


def _jaxfix(*args: str, cwd: Path | None = None) -> tuple[dict, str, str]:
    """(exit code and which of LAZY were imported, stdout, the rest of stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", _RUN, json.dumps(LAZY), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    stderr, _, last = done.stderr.rpartition("\n")
    return json.loads(last), done.stdout, stderr


def test_a_quiet_run_with_nothing_to_report_imports_none_of_them(tmp_path):
    (tmp_path / "plain.py").write_text("import jax\n\nprint(jax.numpy.ones(3))\n")
    outcome, stdout, stderr = _jaxfix("--check", "-q", "-j", "2", str(tmp_path))
    assert outcome == {"exit": 0, "imported": []}, stderr
    assert stdout == stderr == ""


def test_a_warm_parallel_run_starts_no_workers(tmp_path):
    (tmp_path / "a.py").write_text(
        REPORTED + "# padding to make the run worth a pool\n" * 1000
    )  # cached: it has no fix
    cold, _, _ = _jaxfix("--check", "-q", "-j", "2", str(tmp_path))
    assert cold["exit"] == 1 and "jaxfix.check.pool" in cold["imported"]
    warm, stdout, _ = _jaxfix("--check", "-q", "-j", "2", str(tmp_path))
    assert warm["exit"] == 1 and "JAX002" in stdout
    assert (
        "jaxfix.check.pool" not in warm["imported"]
        and "multiprocessing" not in warm["imported"]
    )


def test_what_is_printed_is_printed_when_rich_is_imported_late(tmp_path):
    (tmp_path / "a.py").write_text(VIOLATION)
    outcome, stdout, stderr = _jaxfix(
        "--check", "-q", str(tmp_path / "missing.py"), str(tmp_path)
    )
    assert outcome["exit"] == 2 and "rich" in outcome["imported"]
    assert (
        "missing.py: error: no such file or directory" in stderr and "JAX001" in stdout
    )
    outcome, stdout, stderr = _jaxfix(
        "--check", "--format", "json", str(tmp_path / "missing.py"), str(tmp_path)
    )
    assert outcome["exit"] == 2 and json.loads(stdout)["summary"]
    outcome, _, stderr = _jaxfix("--check", "-j", "1000", str(tmp_path))
    assert (
        outcome["exit"] == 1
        and "warning: -j 1000" in stderr
        and "jaxfix summary" in stderr
    )


def test_version_list_rules_and_explain(tmp_path):
    outcome, stdout, _ = _jaxfix("--version")
    assert outcome["exit"] == 0 and stdout.startswith("jaxfix, version ")
    assert not {"rich", "importlib.metadata", "libcst"} & set(outcome["imported"])
    outcome, stdout, _ = _jaxfix("--list-rules")
    codes = [line.split("\t")[0] for line in stdout.splitlines()]
    assert (
        outcome["exit"] == 0
        and "JAX001" in codes
        and all(code.startswith("JAX") for code in codes)
    )
    outcome, stdout, _ = _jaxfix("--explain", "JAX002", "--format", "json")
    assert outcome["exit"] == 0 and json.loads(stdout)["code"] == "JAX002"


def test_a_gitignore_brings_in_pathspec(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "a.py").write_text(VIOLATION)
    (tmp_path / "plain.py").write_text(
        "x = 1\n"
    )  # a tree of ignored files only would warn 'No Python files found'
    outcome, _, stderr = _jaxfix("--check", "-q", str(tmp_path))
    assert outcome == {"exit": 0, "imported": ["pathspec"]}, stderr


def test_the_help_imports_no_server_and_the_server_no_engine():
    """`jaxfix --help` lists `server` without importing pygls; the language server's own process
    imports neither libcst nor the engine (its analysis process does), so it answers at once."""
    outcome, stdout, _ = _jaxfix("--help")
    assert outcome["exit"] == 0 and "server" in stdout.split("Commands")[1]
    probe = "import sys, jaxfix.cli.server, jaxfix.server.lsp; print(sorted({'pygls', 'libcst', 'jaxfix.check.engine', 'rich'} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.strip() == "['pygls']"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, jaxfix.cli.main, jaxfix.cli.server; print('pygls' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.strip() == "False"


_MODULES = "import sys; print(sorted(sys.modules))"


@pytest.mark.parametrize(
    "python",
    [
        sys.executable,
        *(p for p in os.environ.get("JAXFIX_JAX_PYTHONS", "").split(os.pathsep) if p),
    ],
)
def test_the_recorder_imports_nothing_at_start_up(tmp_path, python):
    """The recorder starts in every Python process of the command: its sitecustomize and hooks
    may add themselves to what Python loads anyway, nothing else (the writer, json, re, importlib
    come at the first error); and it is still there to record (its hook is set)."""
    from jaxfix.evidence.recording import MODULE, RecordingDir

    recording = RecordingDir()
    try:
        recording.write_patterns()
        plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        runs = [
            subprocess.run(
                [
                    python,
                    "-c",
                    _MODULES + "; print(sys.excepthook is not sys.__excepthook__)",
                ]
                if recorded
                else [python, "-c", _MODULES],
                capture_output=True,
                text=True,
                check=True,
                cwd=tmp_path,
                env=recording.env(1, plain) if recorded else plain,
            ).stdout.splitlines()
            for recorded in (False, True)
        ]
    finally:
        recording.close()
    alone, (with_recorder, installed) = ast.literal_eval(runs[0][0]), runs[1]
    allowed = {"sitecustomize", MODULE, "atexit"}  # atexit is built in: no file to read
    assert set(ast.literal_eval(with_recorder)) - set(alone) <= allowed
    assert installed == "True"


_REPAIR = textwrap.dedent("""
    import json, os, subprocess, sys
    lazy = json.loads(sys.argv[1])
    at_spawn = []

    class Popen(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            at_spawn.append([m for m in lazy if m in sys.modules])
            super().__init__(*args, **kwargs)

    def exit(code, _exit=os._exit):
        sys.stderr.write("\\n" + json.dumps({"exit": code, "at_spawn": at_spawn}))
        sys.stderr.flush()
        _exit(code)

    subprocess.Popen, os._exit = Popen, exit
    from jaxfix.cli.main import main
    sys.argv = ["jaxfix", *sys.argv[2:]]
    main()
""")


def test_repair_starts_the_command_before_importing_libcst_or_rich(tmp_path):
    """What `jaxfix repair` needs only once there is evidence (the engine, libcst, the evidence
    reader) or something to print (rich) comes after the command has started, beside it."""
    (tmp_path / "a.py").write_text(VIOLATION)
    lazy = [
        "libcst",
        "jaxfix.check.engine",
        "jaxfix.codemods",
        "jaxfix.evidence.records",
        "rich",
    ]
    done = subprocess.run(
        [sys.executable, "-c", _REPAIR, json.dumps(lazy)]
        + ["repair", str(tmp_path), "--", sys.executable, "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    stderr, _, last = done.stderr.rpartition("\n")
    # the command and the watchdog that ends its group if jaxfix is killed: both started
    # before any of the lazy modules
    assert json.loads(last) == {"exit": 0, "at_spawn": [[], []]}, stderr
    assert done.stdout.startswith("jaxfix repair: running ")
    assert "the command passed" in stderr


_AST_RULE = textwrap.dedent("""
    import json, sys
    from jaxfix.analysis.names import Api
    from jaxfix.codemods.base import Rule
    from jaxfix.ground.diagnostics import Fix, Safety
    from jaxfix.check.engine import check_source
    from jaxfix.settings.options import Options

    class Placed(Rule):
        code = "JAX941"
        name = "placed"
        summary = "a device_put under a mesh"
        fixes = {Safety.UNSAFE: "put 2"}
        tokens = ((b"device_put",),)

        def visit_Call(self, node):
            put = self.analysis.value_of(node.args[0]) if node.args else None
            if self.analysis.called_api(node) is Api.DEVICE_PUT and put == 1:
                mesh = self.analysis.current_mesh(node)
                edit = (node.args[0], lambda old: old.with_changes(value="2"))
                fix = Fix("put 2", (edit,), Safety.UNSAFE)
                self.report(node, f"{put} on {mesh.size} devices", fix=fix)

    lazy = json.loads(sys.argv[1])
    runs = []
    for unsafe in (False, True):  # the unsafe fix is written only with --unsafe-fixes
        fixed, found = check_source(
            sys.argv[2].encode(), Options(unsafe_fixes=unsafe), rules=[Placed]
        )
        runs.append({
            "fixed": fixed.decode() if fixed is not None else None,
            "found": [d.message for d in found],
            "imported": [m for m in lazy if m in sys.modules],
            "old analysis": sorted(
                m for m in sys.modules
                if m.startswith("jaxfix.analysis.") and ".ast_engine" not in m
            ),
        })
    print(json.dumps(runs))
""")


def test_rules_over_ast_that_write_no_fix_import_no_libcst():
    """The engine over `ast` answers a rule's questions and places its report without LibCST
    (of jaxfix/analysis, only the engine, its spelling table and the message matcher are
    loaded); LibCST comes only with the first fix written."""
    source = (
        "import jax\n"
        "with jax.set_mesh(jax.make_mesh((8,), ('x',))):\n"
        "    jax.device_put(1, None)\n"
    )
    lazy = [
        "libcst",
        "jaxfix.codemods.jax001_lowering_platforms",
    ]
    done = subprocess.run(
        [sys.executable, "-c", _AST_RULE, json.dumps(lazy), source],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    reported, fixed = json.loads(done.stdout)
    assert reported == {
        "fixed": None,
        "found": ["1 on 8 devices"],
        "imported": [],
        # what the engine over `ast` takes from jaxfix/analysis: none of the old engine
        "old analysis": ["jaxfix.analysis.names", "jaxfix.analysis.pattern_match"],
    }
    assert fixed["fixed"] == source.replace("put(1", "put(2")
    assert fixed["imported"] == ["libcst"]
