"""The warm path (jaxfix/cache/warm_path.py): a `--check` run whose inputs are all as a recorded
run left them prints exactly that run's output and exits with its code; any change, any other
argument or mode, stdin, or a record from another checkout runs the normal path."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxfix.cache import warm_path
from jaxfix.cli.main import _value_options
from snippets import CLEAN, REPORTED, VIOLATION

REPOSITORY = Path(__file__).resolve().parents[2]
# Runs jaxfix's entry as the command does, then says which path ran: the normal one imports
# the command line (click), a replay imports nothing of it.
DRIVER = """\
import sys
from pathlib import Path

from jaxfix.__main__ import main

try:
    main()
finally:
    Path(__file__).parent.with_name("ran").write_text(
        "normal" if "click" in sys.modules else "replayed"
    )
"""


class Jaxfix:
    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path
        self.project = tmp_path / "project"
        self.project.mkdir()
        (self.project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
        (self.project / "pkg").mkdir()
        (
            tmp_path / "bin"
        ).mkdir()  # the driver's folder is on the import path: nothing else in it
        (tmp_path / "bin" / "driver.py").write_text(DRIVER)
        self.env = dict(os.environ, PYTHONPATH=str(REPOSITORY))

    def __call__(self, *args: str, stdin: str = "") -> tuple[str, str, int, str]:
        """(stdout, stderr, exit code, which path ran) of `jaxfix ARGS`."""
        done = subprocess.run(
            [sys.executable, str(self.home / "bin" / "driver.py"), *args],
            check=False,
            capture_output=True,
            text=True,
            input=stdin,
            cwd=self.home,
            env=self.env,
        )
        return (
            done.stdout,
            done.stderr,
            done.returncode,
            (self.home / "ran").read_text(),
        )

    def recorded(self, *args: str) -> tuple[str, str, int]:
        """Run `args` on the normal path until a run records itself (each input must have
        settled for a while), then replay it: its output, the same both ways."""
        time.sleep(warm_path.SETTLED_NS / 1e9 + 0.2)
        normal = self(*args)
        assert normal[3] == "normal"
        for _ in range(
            5
        ):  # the first run may write bytecode, newer than the run's start
            replayed = self(*args)
            if replayed[3] == "replayed":
                assert replayed[:3] == normal[:3]
                return replayed[:3]
            normal = replayed
            time.sleep(warm_path.SETTLED_NS / 1e9 + 0.2)
        raise AssertionError("no run was recorded")


@pytest.fixture
def jaxfix(tmp_path: Path) -> Jaxfix:
    return Jaxfix(tmp_path)


def test_a_clean_tree_prints_the_same_and_exits_0(jaxfix):
    (jaxfix.project / "pkg" / "a.py").write_text(CLEAN)
    _, err, code = jaxfix.recorded("--check", "--color", "never", "project")
    assert code == 0 and "jaxfix summary" in err
    # the same situation with other arguments, or quiet: each its own record
    assert jaxfix.recorded("check", "-q", "project") == ("", "", 0)


def test_findings_that_only_report_replay_and_exit_1(jaxfix):
    (jaxfix.project / "pkg" / "a.py").write_text(REPORTED)
    out, _, code = jaxfix.recorded("--check", "project")
    assert code == 1 and " JAX002 " in out
    out, _, code = jaxfix.recorded("--check", "--output-format", "json", "project")
    assert code == 1 and '"JAX002"' in out
    # another selection is another run: the normal path, which does not report JAX002
    out, _, code, ran = jaxfix("--check", "--select", "JAX001", "project")
    assert ran == "normal" and code == 0 and "JAX002" not in out


def test_a_fix_is_shown_again_as_text_but_never_given_as_data(jaxfix):
    (jaxfix.project / "pkg" / "a.py").write_text(VIOLATION)
    out, _, code = jaxfix.recorded("--check", "project")
    assert code == 1 and " JAX001 " in out
    # a machine format would carry the fixed code: such a run is never recorded
    time.sleep(warm_path.SETTLED_NS / 1e9 + 0.2)
    for _ in range(2):
        assert jaxfix("--check", "--output-format", "json", "project")[3] == "normal"
    for args in (["--diff"], ["--dry-run"], ["--check", "--diff"]):
        assert jaxfix(*args, "project")[3] == "normal"


def test_a_syntax_error_replays_with_exit_2(jaxfix):
    """A syntax error follows from the file's bytes, which the record holds: the same bytes
    print it again."""
    (jaxfix.project / "pkg" / "a.py").write_text(REPORTED)
    (jaxfix.project / "pkg" / "broken.py").write_text(
        "import jax\nfrom jax.sharding import use_abstract_mesh\ndef f(:\n"
    )
    out, err, code = jaxfix.recorded("--check", "project")
    assert code == 2 and " JAX002 " in out and "broken.py" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a FIFO needs POSIX")
def test_a_file_that_cannot_be_read_is_never_replayed(jaxfix):
    """A file's error that does not follow from its bytes (here a FIFO, which is not read)
    may pass: such a run is never recorded."""
    (jaxfix.project / "pkg" / "a.py").write_text(REPORTED)
    os.mkfifo(jaxfix.project / "pkg" / "pipe.py")
    time.sleep(warm_path.SETTLED_NS / 1e9 + 0.2)
    for _ in range(2):
        _, err, code, ran = jaxfix("--check", "project")
        assert ran == "normal" and code == 2 and "pipe.py" in err


@pytest.mark.parametrize(
    "change",
    [
        "edit",
        "same-size-edit",
        "touch",
        "new-file",
        "new-directory",
        "delete",
        "config",
        "config-in-a-parent",
    ],
)
def test_a_change_runs_the_normal_path(jaxfix, change):
    a = jaxfix.project / "pkg" / "a.py"
    a.write_text(CLEAN)
    (jaxfix.project / "b.py").write_text(CLEAN)
    jaxfix.recorded("--check", "project")
    if change == "edit":
        a.write_text(REPORTED)
    elif change == "same-size-edit":
        a.write_text(CLEAN.replace("zeros", "ZEROS"))
    elif change == "touch":
        os.utime(a)
    elif change == "new-file":
        (jaxfix.project / "pkg" / "c.py").write_text(REPORTED)
    elif change == "new-directory":
        (jaxfix.project / "pkg" / "sub").mkdir()
        (jaxfix.project / "pkg" / "sub" / "c.py").write_text(REPORTED)
    elif change == "delete":
        (jaxfix.project / "b.py").unlink()
    elif change == "config":
        (jaxfix.project / "pyproject.toml").write_text(
            "[tool.jaxfix]\nexclude = ['pkg']\n"
        )
    else:
        (jaxfix.project / "pkg" / "pyproject.toml").write_text(
            "[tool.jaxfix]\nselect = ['JAX001']\n"
        )
    out, err, code, ran = jaxfix("--check", "project")
    assert ran == "normal"
    if change in ("edit", "new-file", "new-directory"):
        assert code == 1 and " JAX002 " in out
    if change == "delete":
        assert re.search(r"files scanned +│ +1 │", err)


def test_stdin_is_never_replayed(jaxfix):
    time.sleep(warm_path.SETTLED_NS / 1e9 + 0.2)
    for _ in range(2):
        out, _, code, ran = jaxfix("--check", "-", stdin=REPORTED)
        assert ran == "normal" and code == 1 and " JAX002 " in out


def test_a_record_from_another_checkout_does_not_hide_findings(jaxfix, tmp_path):
    """A record committed beside the code (a stranger's pull request) names the inodes and
    ctimes of the checkout it was made in: another checkout of the same files runs the
    normal path."""
    a = jaxfix.project / "pkg" / "a.py"
    a.write_text(CLEAN)
    jaxfix.recorded("--check", "project")
    forged = tmp_path / "forged-cache"
    shutil.copytree(jaxfix.project / ".jaxfix_cache", forged)
    shutil.rmtree(jaxfix.project)
    jaxfix.project.mkdir()
    (jaxfix.project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (jaxfix.project / "pkg").mkdir()
    a.write_text(REPORTED)
    shutil.copytree(forged, jaxfix.project / ".jaxfix_cache")
    time.sleep(warm_path.SETTLED_NS / 1e9 + 0.2)
    out, _, code, ran = jaxfix("--check", "project")
    assert ran == "normal" and code == 1 and " JAX002 " in out


def test_a_damaged_record_runs_the_normal_path(jaxfix):
    (jaxfix.project / "pkg" / "a.py").write_text(CLEAN)
    jaxfix.recorded("--check", "project")
    (record,) = (jaxfix.project / ".jaxfix_cache").glob("warm-*")
    data = record.read_bytes()
    record.write_bytes(data[: len(data) // 2])
    assert jaxfix("--check", "project")[3] == "normal"


def test_the_environment_decides_the_record_but_is_never_written_in_it(jaxfix):
    """A token in the environment is part of what decides a run, and the cache directory may
    be uploaded as a CI cache is: the record keeps a hash of it, never the value."""
    secret = "ghp_" + "s3cr3t" * 6
    jaxfix.env["GITHUB_TOKEN"] = secret
    (jaxfix.project / "pkg" / "a.py").write_text(CLEAN)
    jaxfix.recorded("--check", "project")
    (record,) = (jaxfix.project / ".jaxfix_cache").glob("warm-*")
    assert secret.encode() not in record.read_bytes()
    jaxfix.env["GITHUB_TOKEN"] = secret + "x"  # another environment: another run
    assert jaxfix("--check", "project")[3] == "normal"


def test_a_record_that_leaves_out_the_paths_given_is_refused(jaxfix):
    """A forged record naming only what it can predict (here: nothing) must not hide the
    findings of the tree it was not made from."""
    a = jaxfix.project / "pkg" / "a.py"
    a.write_text(CLEAN)
    jaxfix.recorded("--check", "project")
    (record,) = (jaxfix.project / ".jaxfix_cache").glob("warm-*")
    body = record.read_bytes()[len(warm_path._MAGIC) :].partition(b"\n")[2]
    head, _, rest = body.partition(b"\n")
    key_length, code, inputs_length = map(int, head.split())
    forged = b"%d %d 0\n" % (key_length, code) + rest[:key_length]
    forged += rest[key_length + inputs_length :]
    record.write_bytes(
        warm_path._MAGIC + warm_path._hash(forged).encode() + b"\n" + forged
    )
    a.write_text(REPORTED)
    out, _, code, ran = jaxfix("--check", "project")
    assert ran == "normal" and code == 1 and " JAX002 " in out


def test_a_cache_entry_the_run_read_is_an_input(jaxfix):
    """A replay is made of the same cache entries as the recorded run: one rewritten since (a
    forged entry, a CI cache restored over it) runs the normal path."""
    (jaxfix.project / "pkg" / "a.py").write_text(REPORTED)
    jaxfix.recorded("--check", "project")
    cache = jaxfix.project / ".jaxfix_cache"
    (entry,) = [
        p
        for p in cache.iterdir()
        if len(p.name) == 40 and p.name.isalnum()  # a file's entry: its path's hash
    ]
    entry.write_bytes(entry.read_bytes())
    out, _, code, ran = jaxfix("--check", "project")
    assert ran == "normal" and code == 1 and " JAX002 " in out


def test_the_value_options_are_the_commands():
    assert warm_path.VALUE_OPTIONS == _value_options()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--check", "project"], "project/.jaxfix_cache"),
        (["check", "project/pkg"], "project/.jaxfix_cache"),
        (["--check", "--select", "ALL", "project"], "project/.jaxfix_cache"),
        (["--check", "--cache-dir", "elsewhere", "project"], "elsewhere"),
        (["--check", "--cache-dir=elsewhere", "project"], "elsewhere"),
        (["--check", "--", "project"], "project/.jaxfix_cache"),
        (["--check", "-"], None),
        (["project"], None),  # fix mode writes: never recorded
        (["--check", "--diff", "project"], None),
        (["--check", "--output-file=o.txt", "project"], None),
        (["migrate", "--check", "project"], None),
    ],
)
def test_where_a_record_is_looked_for(jaxfix, monkeypatch, argv, expected):
    monkeypatch.chdir(jaxfix.home)
    found = warm_path._checked_cache_dir(argv)
    assert (found and found[0]) == (
        None if expected is None else str(jaxfix.home / expected)
    )
    if found:
        assert found[1] == [str(jaxfix.home / argv[-1])]
