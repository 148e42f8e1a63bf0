"""Odd files, odd names, odd config, signals: each is one clear line, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.check import pool, runner
from jaxfix.cli.main import cli
from jaxfix.ground.escaping import printable
from jaxfix.write.safe_write import TEMP_SUFFIX
from snippets import FIXED, VIOLATION

ROOT = Path(__file__).resolve().parents[2]


def cli_run(*args: str, input: bytes | None = None):
    return CliRunner().invoke(
        cli,
        ["--color", "never", "--no-cache", *args],
        input=input,
        catch_exceptions=False,
    )


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ": error: " in line]


def test_a_fifo_named_like_python_is_an_error_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "ok.py").write_text(VIOLATION)
    result = cli_run(str(tmp_path))
    assert result.exit_code == 2
    assert error_lines(result.stderr) == [
        f"{tmp_path / 'x.py'}: error: not a regular file (a FIFO); not read"
    ]
    assert (tmp_path / "ok.py").read_text() == FIXED


def test_a_socket_is_an_error(tmp_path):
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s.py"))
        result = cli_run(str(tmp_path / "s.py"))
    assert result.exit_code == 2 and "not a regular file (a socket)" in result.stderr


def test_a_character_device_is_an_error_not_an_endless_read(tmp_path):
    os.symlink("/dev/zero", tmp_path / ".py")
    result = cli_run(str(tmp_path / ".py"))
    assert (
        result.exit_code == 2
        and "not a regular file (a character device)" in result.stderr
    )


@pytest.mark.parametrize("line", ["!", "\\", "[z-a]"])
def test_gitignore_lines_git_accepts_do_not_crash(tmp_path, line):
    (tmp_path / ".gitignore").write_text(f"{line}\nignored.py\n")
    (tmp_path / "ignored.py").write_text(VIOLATION)
    (tmp_path / "ok.py").write_text(VIOLATION)
    result = cli_run(str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "ok.py").read_text() == FIXED and (
        tmp_path / "ignored.py"
    ).read_text() == VIOLATION


@pytest.mark.parametrize(
    "content, message",
    [
        (b"[tool.jaxfix]\nselect = ['JAX001'] # caf\xe9\n", "cannot read config"),
        (b"tool = 5\n", "[tool] must be a table, got 5"),
        (b'tool = "jaxfix"\n', "[tool] must be a table, got 'jaxfix'"),
        (
            b"[tool.jaxfix]\nmax-file-size = -1\n",
            "'max-file-size' must be a number of bytes (at least 1), got -1",
        ),
    ],
    ids=["invalid-utf8", "tool-int", "tool-str", "negative-max-file-size"],
)
def test_bad_config_is_one_line(tmp_path, content, message):
    (tmp_path / "pyproject.toml").write_bytes(content)
    (tmp_path / "a.py").write_text(VIOLATION)
    result = cli_run(str(tmp_path / "a.py"))
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "a.py").read_text() == VIOLATION


@pytest.mark.parametrize("name", ["a[/b].py", "[bold]b.py", "[red]x[/red].py"])
def test_rich_markup_in_file_names_is_printed_as_is(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    path = Path(name)
    path.parent.mkdir(exist_ok=True)
    path.write_text(VIOLATION)
    bad = path.with_name("bad_" + path.name)
    bad.write_bytes(b"\0")
    result = cli_run(".")
    assert f"fixed {name} (1 fix)" in result.stderr
    assert f"{bad.as_posix()}: error: not a Python source file" in result.stderr
    assert path.read_text() == FIXED


def test_gitlab_format_with_an_undecodable_file_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(b"bad\xff.py")
    Path(name).write_text(VIOLATION)
    result = cli_run("--check", "--format", "gitlab", name)
    assert result.exit_code == 1
    assert [issue["check_name"] for issue in json.loads(result.stdout)] == ["JAX001"]


def test_a_read_only_file_is_not_counted_as_fixed(tmp_path):
    path = tmp_path / "ro.py"
    path.write_text(VIOLATION)
    path.chmod(0o444)
    text = cli_run(str(path))
    summary = {
        line.split("│")[1].strip(): line.split("│")[2].strip()
        for line in text.stderr.splitlines()
        if line.count("│") == 3
    }
    assert (
        summary["files changed"] == "0"
        and summary["files in error"] == "1"
        and "fixes JAX001" not in summary
    )
    document = json.loads(cli_run("--format", "json", str(path)).stdout)
    assert (
        document["summary"]["files_changed"] == 0 and document["summary"]["fixed"] == 0
    )
    assert document["files"][0]["status"] == "failed"


def test_stdin_honours_the_format_and_max_file_size(tmp_path, monkeypatch):
    result = cli_run("-", "--format", "json", input=VIOLATION.encode())
    document = json.loads(result.stdout)
    assert [d["code"] for d in document["files"][0]["diagnostics"]] == ["JAX001"]
    monkeypatch.chdir(tmp_path)
    Path("pyproject.toml").write_text("[tool.jaxfix]\nmax-file-size = 10\n")
    result = cli_run("-", "--stdin-filename", "a.py", input=VIOLATION.encode())
    assert (
        result.exit_code == 2
        and "a.py: error: input is larger than max-file-size (10 bytes)"
        in result.stderr
    )


def test_closed_stdin_is_one_line():
    completed = subprocess.run(
        ["sh", "-c", f"exec {sys.executable} -m jaxfix - 0<&-"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [
        "-: error: cannot read stdin: stdin is closed"
    ]


ENCODED = {
    "latin-1": ("# -*- coding: latin-1 -*-\n# caf\xe9\n", "latin-1"),
    "cp1252": ("# -*- coding: cp1252 -*-\n# \u20ac price\n", "cp1252"),
    "iso-8859-15": (
        "# -*- coding: iso-8859-15 -*-\n# \u20ac cr\xe8me\n",
        "iso-8859-15",
    ),
    "lone-cr-in-string": ('doc = """one\rtwo"""\n', "utf-8"),
    "crlf": ("# windows\r\n", "utf-8"),
}


@pytest.mark.parametrize("case", sorted(ENCODED))
def test_diff_applies_with_git_apply(tmp_path, monkeypatch, case):
    header, encoding = ENCODED[case]
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    body = VIOLATION.replace("\n", "\r\n") if case == "crlf" else VIOLATION
    Path("m.py").write_bytes((header + body).encode(encoding))
    result = cli_run("--diff", "m.py")
    assert result.exit_code == 1 and result.stdout_bytes
    Path("fix.patch").write_bytes(result.stdout_bytes)
    subprocess.run(["git", "apply", "fix.patch"], check=True, capture_output=True)
    fixed = (
        header + (FIXED.replace("\n", "\r\n") if case == "crlf" else FIXED)
    ).encode(encoding)
    assert Path("m.py").read_bytes() == fixed


def test_jobs_are_capped_at_the_cpus_with_one_warning(tmp_path, monkeypatch):
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(VIOLATION + "# padding\n" * 400)
    asked = []
    real = pool.Workers.__init__

    def recording(self, work, jobs, *args, **kwargs):
        asked.append(jobs)
        real(self, work, jobs, *args, **kwargs)

    monkeypatch.setattr(pool.Workers, "__init__", recording)
    result = cli_run("-j", "1000", str(tmp_path))
    assert result.exit_code == 0
    assert result.stderr.count("warning: -j 1000 is more than the") == 1
    assert asked and asked[0] <= runner.default_jobs()


def test_stale_temp_files_are_removed_by_the_next_run(tmp_path):
    (tmp_path / "m.py").write_text(VIOLATION)
    stale = (
        tmp_path / f".4194305-abcdef{TEMP_SUFFIX}"
    )  # above Linux's largest pid: no such process
    stale.write_bytes(b"")
    assert cli_run("--check", str(tmp_path)).exit_code == 1
    assert not stale.exists()


def _children(pid: int) -> list[int]:
    try:
        return [
            int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        ]
    except OSError:
        return []


@pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="reads child processes from /proc"
)
@pytest.mark.parametrize(
    "signum, code, jobs", [(signal.SIGINT, 130, "1"), (signal.SIGTERM, 143, "2")]
)
def test_signals_exit_130_and_143_leaving_every_file_whole(
    tmp_path, signum, code, jobs
):
    padding = "".join(
        f"def f{i}(x):\n    return [x + {i} for _ in range(3)]\n" for i in range(60)
    )
    for index in range(80):
        (tmp_path / f"m{index:02}.py").write_text(VIOLATION + padding)
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxfix", "--no-cache", "-q", "-j", jobs, str(tmp_path)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(
        p.read_text().startswith(FIXED) for p in tmp_path.glob("*.py")
    ):
        time.sleep(0.02)
    workers = _children(process.pid)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert (
        f"interrupted by {signal.Signals(signum).name}" in stderr
        and "Traceback" not in stderr
    )
    assert not list(tmp_path.glob(f"*{TEMP_SUFFIX}"))
    contents = {p.read_text() for p in tmp_path.glob("*.py")}
    assert (
        contents <= {VIOLATION + padding, FIXED + padding}
        and FIXED + padding in contents
    )
    time.sleep(0.5)
    assert not [pid for pid in workers if _alive(pid)]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def test_named_files_too_deep_for_any_parser_are_one_error_each(tmp_path):
    """No rule applies to them, but a named file's syntax is checked: never by a crashing parser."""
    shapes = {
        "parens.py": "x = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n",
        "minus.py": "x = " + "-" * 100_000 + "1\n",
        "sum.py": "x = " + "+".join(["a"] * 8000) + "\n",
    }
    for name, text in shapes.items():
        (tmp_path / name).write_text(text)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "--no-cache",
            "-q",
            *sorted(str(tmp_path / name) for name in shapes),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 3 and all(
        "nested too deeply for the parser" in line for line in lines
    ), lines


JAX002_SITE = (
    ROOT / "fixtures/JAX002/abstract_mesh_update_of_device_array_mesh.py"
).read_text()
HUGE = "9" * 5000  # Python will not turn more than 4,300 digits into an int


def _git_repo(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix"])
@pytest.mark.parametrize(
    "value", [".git/config", ".git/hooks/pre-commit", "a.py", "report.txt"]
)
def test_a_pyproject_cannot_choose_where_the_report_goes(
    tmp_path, monkeypatch, fix, value
):
    """A pull request's `output-file = ".git/config"` and a file named like a git config
    setting once wrote `core.fsmonitor` (a command git runs) into .git/config; `a.py` left a.py
    holding the report, or empty after fixing it. The key is the flag's alone now: one error."""
    _git_repo(tmp_path)
    hook = tmp_path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(JAX002_SITE)
    Path("[core]fsmonitor=touch${IFS}PWNED_CFG;#.py").write_text(JAX002_SITE)
    Path("pyproject.toml").write_text(f"[tool.jaxfix]\noutput-file = {value!r}\n")
    before = {p: p.read_bytes() for p in (Path(".git/config"), hook, Path("a.py"))}
    result = cli_run(*([] if fix else ["--check"]), ".")
    assert result.exit_code == 2
    assert error_lines(result.stderr) == [
        f"jaxfix: error: {tmp_path / 'pyproject.toml'}: 'output-file' in [tool.jaxfix]: "
        "a config file may come with a pull request and cannot choose where jaxfix "
        "writes: give --output-file"
    ]
    assert {p: p.read_bytes() for p in before} == before
    assert not Path("report.txt").exists()
    subprocess.run(["git", "status"], capture_output=True, check=True)
    assert not Path("PWNED_CFG").exists()


@pytest.mark.parametrize(
    "value",
    [
        "a.py",
        "notes/b.ipynb",
        "c.PY",
        ".git/config",
        ".GIT/hooks/pre-commit",
        "sub/.Git/x",
        ".git./config",
        ".g\u200cit/config",
        "GIT~1/config",
    ],
)
def test_the_output_file_flag_is_never_source_or_inside_a_git_directory(
    tmp_path, monkeypatch, value
):
    """`--output-file a.py` in fix mode printed `fixed a.py` and left it empty; a report is
    never Python source, nor in `.git` however a case-folding file system may spell it."""
    _git_repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(VIOLATION)
    config = Path(".git/config").read_bytes()
    result = cli_run("--output-file", value, "a.py")
    assert result.exit_code == 2
    assert f"--output-file {printable(value)}: a report is not written" in result.stderr
    assert Path("a.py").read_text() == VIOLATION
    assert Path(".git/config").read_bytes() == config
    assert cli_run("--check", "--output-file", "report.txt", "a.py").exit_code == 1
    assert "JAX001" in Path("report.txt").read_text()


def _notebook(metadata: str) -> str:
    cell = {
        "cell_type": "code",
        "metadata": {},
        "source": ["x = 1\n"],
        "outputs": [],
        "execution_count": None,
    }
    document = {
        "cells": [cell],
        "metadata": {"n": 0},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document).replace('"n": 0', f'"n": {metadata}')


@pytest.mark.parametrize("output_format", ["text", "sarif"])
def test_a_notebook_with_a_5000_digit_number_costs_only_itself(tmp_path, output_format):
    """It was a ValueError traceback, exit 1 and an empty SARIF file: every finding lost."""
    (tmp_path / "n.ipynb").write_text(_notebook(HUGE))
    (tmp_path / "a.py").write_text(VIOLATION)
    result = cli_run("--check", "--format", output_format, str(tmp_path))
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert error_lines(result.stderr) == [
        f"{tmp_path / 'n.ipynb'}: error: not a notebook: a number of 5000 characters (at most 1000)"
    ]
    if output_format == "sarif":
        (run,) = json.loads(result.stdout)["runs"]
        assert [r["ruleId"] for r in run["results"]] == ["JAX001"]
    else:
        assert "JAX001" in result.stdout


@pytest.mark.parametrize(
    "content, message",
    [
        (
            f"[tool.jaxfix]\nmax-file-size = {HUGE}\n",
            "cannot read config: an integer beyond TOML's 64 bits",
        ),
        (
            "[tool.jaxfix]\nmax-file-size = 99999999999999999999999\n",
            "cannot read config: integer 99999999999999999999999 is beyond TOML's 64 bits",
        ),
        (
            "[tool.jaxfix]\nmax-file-size = 4611686018427387904\n",
            "'max-file-size' must be a number of bytes (at most 1073741824), got 4611686018427387904",
        ),
        (
            f"[tool.other]\nx = 1.{'0' * 2000}\n[tool.jaxfix]\n",
            "cannot read config: a number of 2002 characters",
        ),
    ],
    ids=["5000-digits", "beyond-64-bits", "beyond-a-read", "long-float"],
)
def test_numbers_in_a_config_are_bounded(tmp_path, content, message):
    """A ValueError (5,000 digits), an OverflowError (a size no read can have) escaped as
    tracebacks; now one line, exit 2, nothing written."""
    (tmp_path / "pyproject.toml").write_text(content)
    (tmp_path / "a.py").write_text(VIOLATION)
    result = cli_run(str(tmp_path / "a.py"))
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    (line,) = error_lines(result.stderr)
    assert message in line
    assert (tmp_path / "a.py").read_text() == VIOLATION


def test_an_evidence_record_with_a_5000_digit_number_is_one_skipped_record(tmp_path):
    """A number in a record (F5) and a jax_version of thousands of digits (F6) were a
    ValueError traceback; a record is skipped, the other records still count."""
    site = tmp_path / "a.py"
    site.write_text(JAX002_SITE)
    line = (
        JAX002_SITE.splitlines().index(
            "    with use_abstract_mesh(mesh.abstract_mesh.update(axis_sizes=(4, 4))):"
        )
        + 1
    )
    message = (
        "use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
        "AbstractMesh('data': 4, 'model': 4) with size=16 and prev mesh: "
        "AbstractMesh('data': 2, 'model': 4) with size=8"
    )
    error = {
        "schema": "jaxfix-evidence/1",
        "kind": "error",
        "code": "JAX002",
        "message": message,
        "frames": [{"path": str(site), "line": line}],
    }
    records = [
        json.dumps({**error, "pid": 0}).replace('"pid": 0', f'"pid": {HUGE}'),
        json.dumps({**error, "jax_version": f"0.{HUGE}"}),
        json.dumps({**error, "jax_version": "0.12.0.1"}),
    ]
    (tmp_path / "e.jsonl").write_text("\n".join(records) + "\n")
    result = cli_run("--check", "--evidence", str(tmp_path / "e.jsonl"), str(site))
    assert "Traceback" not in result.stderr
    assert (
        "record 1: a number of 5000 characters (at most 1000): skipped" in result.stderr
    )
    assert "JAX002" in result.stdout
    from jaxfix.evidence.records import parse_jax_version, read_evidence

    assert parse_jax_version(f"0.{HUGE}") is None
    assert parse_jax_version("0.12.0.1rc2") == (0, 12, 0, 1)
    reading = read_evidence("\n".join(records).encode(), [site])
    assert [e.jax_version for e in reading.evidence[site]] == [(0, 12, 0, 1)]


def test_an_exception_that_escapes_the_cli_is_one_line_and_exit_2(
    tmp_path, monkeypatch, capsys
):
    """Exit 1 means findings: `--format sarif > f.sarif || [ $? -eq 1 ]` passed with an empty
    file when a run crashed. Whatever escapes is one line and exit 2; FILE is left as it was."""
    from jaxfix.check import runner
    from jaxfix.cli import main as cli_main

    def crash(*args, **kwargs):
        raise ValueError("boom\x1b[31m")

    monkeypatch.setattr(runner, "run_files", crash)  # the CLI imports it when it runs
    monkeypatch.chdir(tmp_path)
    Path("a.py").write_text(VIOLATION)
    monkeypatch.setattr(
        sys,
        "argv",
        ["jaxfix", "--check", "--format", "sarif", "--output-file", "f.sarif", "a.py"],
    )
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:  # main() installs its own; later tests need pytest's back
        with pytest.raises(SystemExit) as stop:
            cli_main.main()
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        "jaxfix: error: internal error, run stopped: ValueError: boom\\x1b[31m\n"
    )
    assert not Path("f.sarif").exists()
