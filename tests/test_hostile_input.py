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

from jaxfix import pool, runner
from jaxfix.cli.main import cli
from jaxfix.safe_write import TEMP_SUFFIX
from snippets import FIXED, VIOLATION

ROOT = Path(__file__).resolve().parent.parent


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
