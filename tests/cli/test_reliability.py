"""Never lose or corrupt a file: byte-exact round trips, atomic writes, odd input, interrupts."""

from __future__ import annotations

import os
import signal
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import options_from_args, run_engine
from jaxfix.check import engine, runner
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.cli.main import cli
from jaxfix.settings.options import Options
from jaxfix.write import safe_write
from snippets import CALL, FIXED, FIXED_CALL, VIOLATION


def with_endings(text: str, ending: str) -> str:
    return text.replace("\n", ending)


LAYOUTS = {
    "bom": "\ufeff" + VIOLATION,
    "crlf": with_endings(VIOLATION, "\r\n"),
    "mixed_endings": VIOLATION.replace("\n", "\r\n", 3),
    "tabs_and_trailing_space": VIOLATION.replace("mesh = ", "mesh  =  ").replace(
        "\n", "   \n", 2
    )
    + "if True:\n\tpass\n",
    "no_final_newline": VIOLATION.rstrip("\n"),
    "form_feed": "\x0c\n" + VIOLATION.replace("\nmesh", "\n\x0c\nmesh"),
    "cr_only": with_endings(VIOLATION, "\r"),
    "lone_cr_among_lf": VIOLATION.replace("\n", "\r", 3),
    # Python counts the indentation again after a form feed; LibCST did not.
    "form_feed_before_code": VIOLATION.replace("\nmesh", "\n\x0cmesh"),
    "form_feed_before_indented_line": VIOLATION.replace(
        "lowered = ", "if True:\n\x0c    if True:\n        lowered = "
    )
    + "print(lowered)\n",
    "form_feed_inside_indentation": with_endings(
        VIOLATION.replace("lowered = ", "if True:\n  \x0c    lowered = "), "\r"
    ),
    "very_long_line": VIOLATION + "y = [" + ", ".join(["1"] * 5000) + "]\n",
    "unicode_identifiers": VIOLATION + "données = 'naïve ünïcode ✓'\n",
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_only_the_fixed_call_changes(layout):
    source = LAYOUTS[layout].encode("utf-8")
    options = replace(
        options_from_args([]), line_length=1000
    )  # one line: the layout is the subject
    result = check_file(Run(options), Path("example.py"), source)
    assert result.error is None, result.error
    assert result.fixed == source.replace(CALL.encode(), FIXED_CALL.encode())


def test_lines_a_fix_adds_to_a_cr_only_file_end_in_cr():
    # FIXED puts the call's arguments on lines of their own.
    source = with_endings(VIOLATION, "\r").encode()
    result = check_file(Run(options_from_args([])), Path("example.py"), source)
    assert result.error is None, result.error
    assert result.fixed == with_endings(FIXED, "\r").encode()


def test_latin1_coding_cookie_round_trips():
    header = "# -*- coding: latin-1 -*-\n# caf\xe9 cr\xe8me\n"
    source = (header + VIOLATION).encode("latin-1")
    result = run_engine(source)
    assert result.error is None, result.error
    assert result.fixed == (header + FIXED).encode("latin-1")


@pytest.mark.parametrize(
    "content, message",
    [
        (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR lower AbstractMesh",
            "contains NUL bytes",
        ),
        (
            b"x = 'caf\xe9'\n" + VIOLATION.encode(),
            "cannot decode as utf-8 (byte 0xe9 at offset 8)",
        ),
        (
            b"# -*- coding: klingon -*-\nx = 1\n",
            "cannot decode: unknown encoding: klingon",
        ),
        (
            b"print 'hello'\n" + VIOLATION.encode(),
            "1:1: syntax error: Missing parentheses in call to 'print'",
        ),
        (b"def f(:\n  pass\n" + VIOLATION.encode(), "1:7: syntax error"),
    ],
    ids=[
        "binary",
        "non-utf8-without-cookie",
        "unknown-cookie",
        "python2",
        "syntax-error",
    ],
)
def test_bad_input_gets_one_clear_error(content, message):
    result = run_engine(content)
    assert result.error is not None
    where = result.error_location
    assert message in (f"{where.line}:{where.column}: " if where else "") + result.error
    assert "\n" not in result.error
    assert result.fixed is None


def cli_run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_every_bad_file_is_reported_and_the_rest_still_fixed(tmp_path):
    bad = {
        "binary.py": b"\x00\x01\x02",
        "latin.py": b"x = '\xe9'\n",
        "py2.py": b"print 'hi'\n" + VIOLATION.encode(),
        "big.py": b"# " + b"x" * 2000 + b"\n",
    }
    for name, content in bad.items():
        (tmp_path / name).write_bytes(content)
    (tmp_path / "ok.py").write_text(VIOLATION)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nmax-file-size = 1000\n")
    result = cli_run("--color", "never", str(tmp_path))
    assert result.exit_code == 2
    error_lines = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert sorted(Path(line.split(":")[0]).name for line in error_lines) == sorted(bad)
    assert (tmp_path / "ok.py").read_text() == FIXED
    for name, content in bad.items():
        assert (tmp_path / name).read_bytes() == content


def test_a_file_too_large_to_parse_gets_one_error_and_the_rest_is_fixed(tmp_path):
    """max-parse-memory bounds a worker's memory: the file is refused before LibCST builds its
    tree, from the size `ast` predicts, not by running out of memory."""
    huge = (
        VIOLATION
        + "def generated():\n"
        + "".join(f"    x{i} = f(a, b[{i}], c.d)\n" for i in range(2000))
    )
    (tmp_path / "huge.py").write_text(huge)
    (tmp_path / "ok.py").write_text(VIOLATION)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nmax-parse-memory = 40\n")
    result = cli_run("--color", "never", "-j", "1", str(tmp_path))
    assert result.exit_code == 2
    (error,) = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert (
        "huge.py" in error
        and "more than max-parse-memory (40 MB)" in error
        and "syntax nodes" in error
    )
    assert (tmp_path / "huge.py").read_text() == huge
    assert (tmp_path / "ok.py").read_text() == FIXED
    (tmp_path / "pyproject.toml").write_text("[tool.jaxfix]\nmax-parse-memory = 200\n")
    assert cli_run("--color", "never", "-j", "1", str(tmp_path)).exit_code == 0
    assert (tmp_path / "huge.py").read_text() != huge


def test_writes_keep_the_file_mode(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)
    os.chmod(path, 0o751)
    assert cli_run(str(path)).exit_code == 0
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert path.read_text() == FIXED


def test_read_only_file_is_an_error_and_untouched(tmp_path):
    path = tmp_path / "ro.py"
    path.write_text(VIOLATION)
    os.chmod(path, 0o444)
    (tmp_path / "rw.py").write_text(VIOLATION)
    result = cli_run("--color", "never", str(tmp_path))
    assert result.exit_code == 2
    assert (
        "ro.py: error: cannot write: permission denied (read-only file)"
        in result.stderr
    )
    assert path.read_text() == VIOLATION and (tmp_path / "rw.py").read_text() == FIXED


def test_symlinked_file_is_rewritten_once_at_its_target(tmp_path):
    (tmp_path / "real.py").write_text(VIOLATION)
    os.symlink(tmp_path / "real.py", tmp_path / "alias.py")
    result = cli_run("--color", "never", str(tmp_path), str(tmp_path / "alias.py"))
    assert result.exit_code == 0
    assert (tmp_path / "alias.py").is_symlink()
    assert (tmp_path / "real.py").read_text() == FIXED
    assert result.stderr.count("fixed ") == 1


def test_file_changed_between_read_and_write_is_not_overwritten(tmp_path, monkeypatch):
    path = tmp_path / "race.py"
    path.write_text(VIOLATION)
    real_check_file = engine.check_file

    def edit_meanwhile(*args, **kwargs):
        result = real_check_file(*args, **kwargs)
        path.write_text(VIOLATION + "# edited by someone else\n")
        return result

    monkeypatch.setattr(engine, "check_file", edit_meanwhile)
    result = runner.process_file(Run(Options()), path, write=True)
    assert result.error and "changed while jaxfix was running" in result.error
    assert path.read_text() == VIOLATION + "# edited by someone else\n"


def test_vanished_file_is_an_error(tmp_path):
    result = runner.process_file(Run(Options()), tmp_path / "gone.py", write=True)
    assert result.error and result.error.startswith("cannot read:")


def test_interrupt_during_write_leaves_no_temp_file_and_the_original(
    tmp_path, monkeypatch
):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(safe_write, "_exchange", interrupted)
    with pytest.raises(KeyboardInterrupt):
        runner.process_file(Run(Options()), path, write=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]
    assert path.read_text() == VIOLATION


@pytest.mark.parametrize(
    "signum, exception",
    [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, SystemExit)],
)
def test_a_signal_during_a_write_waits_for_it_to_finish(
    tmp_path, monkeypatch, signum, exception
):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)
    real_write_all = safe_write._write_all

    def signalled(fd, data):
        os.kill(
            os.getpid(), signum
        )  # arrives between creating the temp file and filling it
        real_write_all(fd, data)

    def stop(received, _frame):
        raise SystemExit(128 + received)

    monkeypatch.setattr(safe_write, "_write_all", signalled)
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(exception):
            runner.process_file(Run(Options()), path, write=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]
    assert path.read_text() == FIXED


def test_a_rule_crash_is_isolated_to_its_file(monkeypatch):
    def boom(*_args, **_kwargs):
        raise RuntimeError("rule bug")

    monkeypatch.setattr(engine, "_run_rules", boom)
    result = run_engine(VIOLATION)
    assert (
        result.error
        == "internal error in a rule, file left untouched: RuntimeError: rule bug"
    )


def test_unparsable_fix_output_is_refused(monkeypatch):
    import libcst as cst

    def broken_apply(module, fixes, analysis, line_length, order):
        return cst.parse_module("x = (\n    1\n)\n").with_changes(
            body=[cst.SimpleStatementLine([cst.Expr(cst.Name("def"))])]
        )

    monkeypatch.setattr(engine, "_apply", broken_apply)
    result = run_engine(VIOLATION)
    assert result.error is not None and result.error.startswith(
        "internal error, file left untouched"
    )
    assert result.fixed is None


def test_a_file_libcst_cannot_reproduce_is_never_rewritten():
    odd_tail = (
        VIOLATION.encode() + b"\n "
    )  # LibCST drops the blank line before a final indent
    result = run_engine(odd_tail)
    assert result.fixed is None
    assert (
        result.error
        == "internal error, file left untouched: LibCST does not reproduce this file byte for byte, so jaxfix will not rewrite it"
    )
    clean = b"import jax\nx = jax.jit(f).lower\n\n "
    assert run_engine(clean).fixed is None and run_engine(clean).error is None
