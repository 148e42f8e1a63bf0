"""Writes against a hostile machine: concurrent writers, deletions, links, owners, attributes."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxfix.cli.main import cli
from jaxfix.write import safe_write
from jaxfix.write.safe_write import WriteError, real_roots, replace_source, write_file
from snippets import FIXED, VIOLATION

# A second process that keeps editing files: appends (open, write, close) or deletes, and prints
# what it completed once the stop file appears (or after its own bound).
_EDITOR = r"""
import os, sys, time
from pathlib import Path
root, mode = Path(sys.argv[1]), sys.argv[2]
files = sorted(root.glob("*.py"))
done = []
deadline = time.monotonic() + 20
for n in range(200000):
    if (root / "stop").exists() or time.monotonic() > deadline:
        break
    path = files[n % len(files)]
    if mode == "append":
        with open(path, "a") as handle:
            handle.write(f"# append {n}\n")
        done.append(f"# append {n}\n")
    elif n % 7 == 0 and path.exists() and (root / "go").exists():  # deletes once the writer runs
        os.unlink(path)
        done.append(path.name)
        files.remove(path)
        if not files:
            break
    time.sleep(0.001)
print("\n".join(x.strip() for x in done))
"""


def _race(tmp_path: Path, mode: str, writes: int) -> tuple[list[str], dict[str, int]]:
    """Write every file over and over (re-reading it each time) while the editor runs."""
    for index in range(8):
        (tmp_path / f"f{index}.py").write_text(VIOLATION)
    editor = subprocess.Popen(
        [sys.executable, "-c", _EDITOR, str(tmp_path), mode],
        stdout=subprocess.PIPE,
        text=True,
    )
    outcomes = {"written": 0, "refused": 0}
    late_checks: list[safe_write.LateCheck] = []
    try:
        for n in range(writes):
            if (
                n % 8 == 0
            ):  # confirmed after each round, as a run confirms its writes at its end
                outcomes["refused"] += len(safe_write.confirm_writes(late_checks))
            path = tmp_path / f"f{n % 8}.py"
            try:
                content = path.read_bytes()
            except FileNotFoundError:
                continue
            try:
                replace_source(
                    path,
                    content + b"# jaxfix\n",
                    expected=content,
                    late_checks=late_checks,
                )
                outcomes["written"] += 1
                if (
                    outcomes["written"] == 16
                ):  # both sides run from here on, however loaded the machine
                    (tmp_path / "go").touch()
            except WriteError:
                outcomes["refused"] += 1
        outcomes["refused"] += len(safe_write.confirm_writes(late_checks))
    finally:
        (tmp_path / "stop").touch()
        completed = editor.communicate(timeout=60)[0].split("\n")
    return [line for line in completed if line], outcomes


def test_no_completed_append_is_lost_to_a_concurrent_fix(tmp_path):
    appended, outcomes = _race(tmp_path, "append", writes=400)
    assert outcomes["written"] > 100 and appended  # both sides really ran
    text = "".join(p.read_text() for p in tmp_path.glob("*.py"))
    lost = [line for line in appended if line + "\n" not in text]
    assert not lost, f"{len(lost)} of {len(appended)} completed appends lost"
    assert not list(tmp_path.glob(f"*{safe_write.TEMP_SUFFIX}"))


def test_a_file_deleted_during_the_run_is_never_recreated(tmp_path):
    deleted, outcomes = _race(tmp_path, "delete", writes=400)
    assert deleted and outcomes["written"] > 10
    assert [name for name in deleted if (tmp_path / name).exists()] == []
    assert not list(tmp_path.glob(f"*{safe_write.TEMP_SUFFIX}"))


def _edit_just_before(monkeypatch, name: str, edit) -> None:
    """Run `edit(target)` right before safe_write's `name` swaps the files: after the last check."""
    real = getattr(safe_write, name) if name != "replace" else os.replace
    target_holder = {}

    def swap(a, b, *args):
        target = Path(b)
        if not target_holder:
            target_holder["done"] = True
            edit(target)
        return real(a, b, *args)

    if name == "replace":
        monkeypatch.setattr(
            safe_write, "_renameat2", lambda: None
        )  # the fallback without RENAME_EXCHANGE
        monkeypatch.setattr(safe_write.os, "replace", swap)
    else:
        monkeypatch.setattr(safe_write, name, swap)


@pytest.mark.parametrize("swap", ["_exchange", "replace"])
def test_an_edit_after_the_last_check_is_restored_and_reported(
    tmp_path, monkeypatch, swap
):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)

    def append(target: Path) -> None:
        with open(target, "a") as handle:
            handle.write("# theirs\n")

    _edit_just_before(monkeypatch, swap, append)
    with pytest.raises(WriteError, match="the other edit was restored"):
        replace_source(path, FIXED.encode(), expected=VIOLATION.encode())
    assert path.read_text() == VIOLATION + "# theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


def test_a_file_deleted_after_the_last_check_is_not_recreated(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)
    _edit_just_before(monkeypatch, "_exchange", os.unlink)
    with pytest.raises(WriteError, match="deleted"):
        replace_source(path, FIXED.encode(), expected=VIOLATION.encode())
    assert list(tmp_path.iterdir()) == []


def test_hard_links_keep_sharing_the_fixed_file(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)
    os.link(path, tmp_path / "other_name.txt")
    inode = os.stat(path).st_ino
    replace_source(path, FIXED.encode(), expected=VIOLATION.encode())
    assert (tmp_path / "other_name.txt").read_text() == FIXED == path.read_text()
    assert os.stat(path).st_ino == inode and os.stat(path).st_nlink == 2


def test_a_symlink_made_since_the_roots_were_taken_cannot_lead_a_write_out(tmp_path):
    tree, elsewhere = tmp_path / "tree", tmp_path / "elsewhere"
    (tree / "pkg").mkdir(parents=True)
    elsewhere.mkdir()
    within = real_roots([tree])
    (tree / "real.py").write_text(VIOLATION)
    (tree / "alias.py").symlink_to(tree / "real.py")  # inside the tree: followed
    replace_source(
        tree / "alias.py", FIXED.encode(), expected=VIOLATION.encode(), within=within
    )
    assert (tree / "real.py").read_text() == FIXED
    (elsewhere / "m.py").write_text(VIOLATION)
    (tree / "m.py").symlink_to(elsewhere / "m.py")  # a file made a link out
    (elsewhere / "pkg").mkdir()
    (elsewhere / "pkg" / "n.py").write_text(VIOLATION)
    os.rename(tree / "pkg", tmp_path / "old-pkg")
    (tree / "pkg").symlink_to(
        elsewhere / "pkg"
    )  # a directory on the way made a link out
    for path in (tree / "m.py", tree / "pkg" / "n.py"):
        with pytest.raises(WriteError, match="symbolic link leads out of the tree"):
            replace_source(
                path, FIXED.encode(), expected=VIOLATION.encode(), within=within
            )
    assert {p.read_text() for p in elsewhere.rglob("*.py")} == {VIOLATION}


@pytest.mark.skipif(
    os.geteuid() != 0, reason="giving a file to another owner needs root"
)
def test_owner_and_group_are_kept(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)
    os.chown(path, 12345, 23456)
    replace_source(path, FIXED.encode(), expected=VIOLATION.encode())
    st = os.stat(path)
    assert (st.st_uid, st.st_gid) == (12345, 23456) and path.read_text() == FIXED


def test_extended_attributes_are_kept(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)
    try:
        os.setxattr(path, "user.jaxfix_test", b"kept")
    except OSError as error:
        if error.errno in (errno.ENOTSUP, errno.EPERM):
            pytest.skip(
                f"this filesystem has no user extended attributes ({error.strerror})"
            )
        raise
    replace_source(path, FIXED.encode(), expected=VIOLATION.encode())
    assert (
        os.getxattr(path, "user.jaxfix_test") == b"kept" and path.read_text() == FIXED
    )


def test_a_240_character_file_name_is_fixed(tmp_path):
    path = tmp_path / ("a" * 237 + ".py")
    path.write_text(VIOLATION)
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["--no-cache", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert path.read_text() == FIXED


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists("/usr/bin/chattr"),
    reason="needs root and chattr (an immutable file)",
)
def test_an_immutable_file_is_an_error_not_a_fix(tmp_path):
    """As root, a mode of 0444 does not stop a write; an immutable file does."""
    path = tmp_path / "m.py"
    path.write_text(VIOLATION)
    if (
        subprocess.run(
            ["chattr", "+i", str(path)], capture_output=True, check=False
        ).returncode
        != 0
    ):
        pytest.skip("this filesystem does not support chattr +i")
    try:
        with pytest.raises(WriteError):
            replace_source(path, FIXED.encode(), expected=VIOLATION.encode())
        assert path.read_text() == VIOLATION
        assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_write_file_is_atomic_and_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    write_file(target, b"one")
    assert target.read_bytes() == b"one"

    def fail(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_write.os, "replace", fail)
    with pytest.raises(OSError):
        write_file(target, b"two")
    assert target.read_bytes() == b"one" and [p.name for p in tmp_path.iterdir()] == [
        "report.json"
    ]


def test_stale_temp_files_of_a_dead_run_are_swept(tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = tmp_path / f".{int(dead.stdout)}-abcdef{safe_write.TEMP_SUFFIX}"
    live = tmp_path / f".{os.getppid()}-abcdef{safe_write.TEMP_SUFFIX}"
    stale.write_bytes(b"")
    live.write_bytes(b"")
    safe_write.remove_stale_temps([tmp_path])
    assert not stale.exists() and live.exists()
