"""The one reader (jaxfix/sources/file_io.py): regular files only, bounded, decoded as their producer
wrote them: Python files in their own encoding with Python's own line breaks, logs streamed in
the encoding their BOM names, universal newlines, every line bounded."""

from __future__ import annotations

import codecs
import io
import linecache
import os
import socket
import traceback

import pytest

from jaxfix.sources.file_io import (
    ReadError,
    TextStream,
    open_regular,
    read_regular,
    source_lines,
)

# Characters str.splitlines() ends a line at and Python's tokenizer does not.
NOT_LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def stream(
    data: bytes, *, limit: int = 1 << 30, max_line: int = 100
) -> tuple[str, list[tuple[int, str, bool, bool]]]:
    lines = TextStream(
        io.BytesIO(data), limit=limit, bound="max-log-size", max_line=max_line
    )
    found = [(line.number, line.text, line.undecodable, line.cut) for line in lines]
    return lines.encoding, found


# -- what is read ----------------------------------------------------------------------------------


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "x.log"
    os.mkfifo(
        fifo
    )  # no writer: opening it for reading without O_NONBLOCK would block forever
    with pytest.raises(ReadError, match=r"^not a regular file \(a FIFO\); not read$"):
        read_regular(fifo, 100)


@pytest.mark.parametrize(
    "path, kind", [("/dev/zero", "a character device"), ("/", "a directory")]
)
def test_devices_and_directories_are_refused(path, kind):
    with pytest.raises(ReadError, match=rf"^not a regular file \({kind}\); not read$"):
        read_regular(path, 100)


def test_a_socket_is_refused(tmp_path):
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s.py"))
        with pytest.raises(ReadError, match=r"a socket"):
            read_regular(tmp_path / "s.py", 100)


def test_a_symlink_to_a_device_is_refused_and_without_following_any_symlink(tmp_path):
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "real").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(ReadError, match="a character device"):
        read_regular(tmp_path / "zero", 100)
    assert read_regular(tmp_path / "link", 100) == b"x"
    with pytest.raises(ReadError, match="symbolic link"):
        read_regular(tmp_path / "link", 100, follow_symlinks=False)


def test_the_size_bound_names_its_setting(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(
        ReadError, match=r"^file is larger than max-file-size \(101 > 100 bytes\)$"
    ):
        read_regular(tmp_path / "big", 100, bound="max-file-size")
    assert read_regular(tmp_path / "big", 101) == b"x" * 101
    with pytest.raises(ReadError, match="larger than max-log-size"):
        open_regular(tmp_path / "big", limit=100, bound="max-log-size")


# -- Python files: their own encoding, Python's line breaks ----------------------------------------


def test_source_lines_are_the_lines_python_numbers(tmp_path):
    """Every line as the traceback module shows it (linecache: the file's cookie, universal
    newlines), also after characters str.splitlines() breaks at."""
    source = (
        "# -*- coding: latin-1 -*-\nA = 'caf\xe9'\n\x0c\n"
        + "".join(
            f"N{i} = 'x{c}y'  # {c}\n"
            for i, c in enumerate(NOT_LINE_BREAKS)
            if c in "\x0b\x0c\x1c\x1d\x1e\x85"
        )
        + "B = 1\rC = 2\r\nraise ValueError(A)\n"
    )
    path = tmp_path / "m.py"
    path.write_bytes(source.encode("latin-1"))
    assert (
        len(source.splitlines()) > source.count("\n") + 2
    )  # str.splitlines would shift them
    with pytest.raises(ValueError) as raised:
        exec(compile(path.read_bytes(), str(path), "exec"), {})
    raising = traceback.extract_tb(raised.tb)[-1]
    lines = source_lines(path, 10_000)
    assert lines[raising.lineno - 1].strip() == raising.line == "raise ValueError(A)"
    assert lines == [
        linecache.getline(str(path), n).rstrip("\r\n") for n in range(1, len(lines) + 1)
    ]
    assert lines[1] == "A = 'café'"


def test_source_lines_in_utf8_with_a_bom_and_u2028(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(
        codecs.BOM_UTF8 + "S = 'a\u2028b\u2029c'\nraise ValueError\n".encode()
    )
    assert source_lines(path, 1000) == ["S = 'a\u2028b\u2029c'", "raise ValueError"]


def test_source_lines_of_an_undecodable_file_is_one_reason(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = '\xff'\n")
    with pytest.raises(ReadError, match="cannot decode as utf-8"):
        source_lines(path, 1000)


# -- logs: streamed, in their own encoding, universal newlines ---------------------------------------


def test_universal_newlines_and_a_crlf_split_between_chunks():
    assert stream(b"a\nb\r\nc\rd")[1] == [
        (1, "a", False, False),
        (2, "b", False, False),
        (3, "c", False, False),
        (4, "d", False, False),
    ]
    data = (
        b"a" * (65536 - 1) + b"\r\nb\n"
    )  # the \r ends the first chunk, its \n starts the next
    assert [(n, len(t)) for n, t, _, _ in stream(data, max_line=1 << 20)[1]] == [
        (1, 65535),
        (2, 1),
    ]


@pytest.mark.parametrize(
    "encoding, data",
    [
        ("utf-16-le", codecs.BOM_UTF16_LE + "Traceback\r\nE x\r\n".encode("utf-16-le")),
        ("utf-16-be", codecs.BOM_UTF16_BE + "Traceback\r\nE x\r\n".encode("utf-16-be")),
        (
            "utf-16-le",
            "Traceback\r\nE x\r\n".encode("utf-16-le"),
        ),  # no BOM: the NULs tell
        ("utf-32-le", codecs.BOM_UTF32_LE + "Traceback\r\nE x\r\n".encode("utf-32-le")),
        ("utf-8", codecs.BOM_UTF8 + b"Traceback\r\nE x\r\n"),
    ],
)
def test_the_bom_names_the_encoding(encoding, data):
    assert stream(data) == (
        encoding,
        [(1, "Traceback", False, False), (2, "E x", False, False)],
    )


def test_nul_padding_is_not_utf16():
    encoding, lines = stream(b"\0" * 5000 + b"Traceback\n", max_line=10_000)
    assert encoding == "utf-8" and lines[0][1] == "\0" * 5000 + "Traceback"


def test_undecodable_bytes_mark_their_line_only():
    """Kept as surrogateescape keeps them: a path holding them is had back byte for byte."""
    lines = stream(b"ok\nb\xffd\nok\n")[1]
    assert lines == [
        (1, "ok", False, False),
        (2, "b\udcffd", True, False),
        (3, "ok", False, False),
    ]
    assert os.fsencode(lines[1][1]) == b"b\xffd"
    assert stream(b"a \xef\xbf\xbd from another tool\n")[1][0][2]  # U+FFFD: marked too


def test_a_line_longer_than_the_bound_is_cut_and_the_next_line_is_whole():
    encoding, lines = stream(b"x" * 1000 + b"\nnext\n", max_line=10)
    assert lines == [(1, "x" * 10, False, True), (2, "next", False, False)]


def test_an_endless_stream_stops_at_its_bound_in_little_memory():
    class Zeros(io.RawIOBase):
        def readinto(self, buffer):
            buffer[:] = bytes(len(buffer))
            return len(buffer)

        def readable(self):
            return True

    lines = TextStream(
        io.BufferedReader(Zeros()), limit=8 << 20, bound="max-log-size", max_line=1000
    )
    with pytest.raises(
        ReadError,
        match=r"^input is larger than max-log-size \(8388608 bytes\); not read$",
    ):
        for _ in lines:
            pass


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_evidence_file_that_is_no_regular_file_is_one_line_never_a_hang(
    tmp_path, kind
):
    """`--evidence` reads through the same reader (an evidence file may come with a pull request)."""
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "m.py").write_text("x = 1\n")
    evidence = tmp_path / "evidence.jsonl"
    if kind == "fifo":
        os.mkfifo(evidence)
    else:
        evidence = Path("/dev/zero")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "--evidence",
            str(evidence),
            "--check",
            "-q",
            str(tmp_path),
        ],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 2
    errors = [line for line in done.stderr.decode().splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0].endswith(
        "not a regular file ("
        + ("a FIFO" if kind == "fifo" else "a character device")
        + "); not read"
    )


@pytest.mark.parametrize("name", [".gitignore", "pyproject.toml"])
def test_a_committed_config_or_gitignore_linked_to_dev_zero_is_never_read_endlessly(
    tmp_path, name
):
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / ".git").mkdir()
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / name).symlink_to("/dev/zero")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxfix",
            "--check",
            "-q",
            "--config" if name == "pyproject.toml" else "--no-cache",
            *([str(tmp_path / name)] if name == "pyproject.toml" else []),
            str(tmp_path),
        ],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert b"Traceback" not in done.stderr and b"MemoryError" not in done.stderr
    if name == "pyproject.toml":
        assert (
            done.returncode == 2
            and b"cannot read config: not a regular file (a character device)"
            in done.stderr
        )
    else:
        assert done.returncode == 0
