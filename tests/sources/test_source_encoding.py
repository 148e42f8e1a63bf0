"""A file whose coding cookie declares another encoding than UTF-8 (PEP 263): `ast` counts
columns in the UTF-8 bytes of the decoded line, LibCST in characters; jaxfix decodes the
file as the cookie says, so a fix after non-ASCII text on its line lands where it should and
the file keeps its encoding."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli

FIXTURE = (
    Path(__file__).parents[2]
    / "fixtures"
    / "JAX002"
    / "abstract_mesh_update_of_device_array_mesh.py"
)
FIXED = FIXTURE.with_name(FIXTURE.stem + ".fixed.py")
LINE = "    with use_abstract_mesh(mesh.abstract_mesh.update(axis_sizes=({}, 4))):\n"
# the resized mesh built after non-ASCII text on its own line
SPLIT = (
    "    x = 'àéîõü'; m2 = mesh.abstract_mesh.update(axis_sizes=({}, 4))\n"
    "    with use_abstract_mesh(m2):\n"
)


def _variant(text: str, size: int, encoding: str) -> bytes:
    line = LINE.format(size)
    assert line in text
    body = text.replace(line, SPLIT.format(size))
    if encoding != "utf-8":
        body = f"# -*- coding: {encoding} -*-\n" + body
    return body.encode(encoding)


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1", "cp1252"])
def test_a_fix_after_non_ascii_text_in_a_declared_encoding(tmp_path, encoding):
    before = _variant(FIXTURE.read_text(encoding="utf-8"), 4, encoding)
    expected = _variant(FIXED.read_text(encoding="utf-8"), 2, encoding)
    path = tmp_path / "train.py"
    path.write_bytes(before)
    os.chdir(tmp_path)
    result = CliRunner().invoke(
        cli, ["--unsafe-fixes", "--no-cache", "train.py"], catch_exceptions=False
    )
    assert result.exit_code == 0 and "internal error" not in result.output, (
        result.output
    )
    assert path.read_bytes() == expected  # the same bytes, in the file's own encoding
    ast.parse(path.read_bytes())
