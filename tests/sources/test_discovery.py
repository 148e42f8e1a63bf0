"""Which files a run sees: .py/.pyi, default excludes, --exclude, .gitignore, explicit paths."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from jaxfix.sources.discovery import discover


def names(found, root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in found.files)


def make(root: Path, *paths: str) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n")


def test_python_files_and_default_excludes(tmp_path):
    make(
        tmp_path,
        "a.py",
        "b.pyi",
        "c.txt",
        "pkg/d.py",
        ".venv/e.py",
        "build/f.py",
        "node_modules/g.py",
        "__pycache__/h.py",
        "lib/site-packages/i.py",
        ".git/j.py",
    )
    assert names(discover([tmp_path]), tmp_path) == ["a.py", "b.pyi", "pkg/d.py"]


def test_exclude_globs_but_explicit_paths_always_win(tmp_path):
    make(tmp_path, "keep.py", "gen/skip.py", "skip_me.py")
    found = discover([tmp_path], exclude=("gen", "skip_*.py"))
    assert names(found, tmp_path) == ["keep.py"]
    explicit = discover(
        [tmp_path / "gen" / "skip.py", tmp_path / "c.txt"], exclude=("gen",)
    )
    assert [p.name for p in explicit.files] == ["skip.py"]
    assert explicit.errors and "no such file" in explicit.errors[0][1]


def test_gitignore_is_honored_inside_a_repo(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("generated/\n*_pb2.py\n!keep_pb2.py\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("local.py\n")
    make(
        tmp_path,
        "a.py",
        "generated/b.py",
        "x_pb2.py",
        "keep_pb2.py",
        "sub/local.py",
        "sub/other.py",
        "sub/y_pb2.py",
        "sub/deeper/z_pb2.py",
        "sub/deeper/keep_pb2.py",
    )
    assert names(discover([tmp_path]), tmp_path) == [
        "a.py",
        "keep_pb2.py",
        "sub/deeper/keep_pb2.py",
        "sub/other.py",
    ]
    # walking a subdirectory, the .gitignore files above it still apply
    assert names(discover([tmp_path / "sub"]), tmp_path) == [
        "sub/deeper/keep_pb2.py",
        "sub/other.py",
    ]


def test_symlinks_are_not_followed_out_of_the_root_and_are_seen_once(tmp_path):
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    make(outside, "secret.py")
    make(root, "real.py")
    os.symlink(outside / "secret.py", root / "link_out.py")
    os.symlink(root / "real.py", root / "link_in.py")
    os.symlink(outside, root / "linked_dir")
    found = discover([root])
    assert len(found.files) == 1 and found.files[0].name in ("link_in.py", "real.py")


def test_unreadable_directory_is_an_error_not_a_crash(tmp_path, monkeypatch):
    make(tmp_path, "a.py", "locked/b.py")
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = discover([tmp_path])
    assert names(found, tmp_path) == ["a.py"]
    assert found.errors == [
        (tmp_path / "locked", "cannot read directory: Permission denied")
    ]
