"""What a run imports: rich, importlib.metadata, multiprocessing, pathspec, the notebook code,
tomllib and ctypes only once they are needed, and every command still works without them
imported up front (each case in a fresh process: this one has imported everything already)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from snippets import REPORTED, VIOLATION

ROOT = Path(__file__).resolve().parents[1]
LAZY = (
    "rich",
    "importlib.metadata",
    "multiprocessing",
    "jaxfix.pool",
    "pathspec",
    "libcst",
    "jaxfix.notebook",
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
    assert cold["exit"] == 1 and "jaxfix.pool" in cold["imported"]
    warm, stdout, _ = _jaxfix("--check", "-q", "-j", "2", str(tmp_path))
    assert warm["exit"] == 1 and "JAX002" in stdout
    assert (
        "jaxfix.pool" not in warm["imported"]
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
    probe = "import sys, jaxfix.cli.server, jaxfix.server.lsp; print(sorted({'pygls', 'libcst', 'jaxfix.engine', 'rich'} & set(sys.modules)))"
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
