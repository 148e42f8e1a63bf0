"""One Source for a `.py` file, a notebook file and an editor's notebook document: the editor's
cells, checked without any JSON, give what the notebook file gives (places, messages, fixes)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from fixture_cases import all_cases
from helpers import options_from_args
from jaxfix.check.engine import check_file, check_source_of
from jaxfix.check.run import Run
from jaxfix.ground.diagnostics import FileResult, Location
from jaxfix.sources.kinds import as_stored, from_text, source_of
from jaxfix.sources.notebook import EditorCells, NotebookSource
from jaxfix.sources.source import PythonSource

NOTEBOOKS = [c for c in all_cases() if c.before.suffix == ".ipynb"]


def _cells(raw: bytes) -> list[tuple[int, str]]:
    """The code cells of a notebook as an editor holds them: number among all cells, text."""
    cells = json.loads(raw)["cells"]
    return [
        (number, "".join(cell["source"]))
        for number, cell in enumerate(cells, start=1)
        if cell["cell_type"] == "code"
    ]


@pytest.mark.parametrize("case", NOTEBOOKS, ids=lambda c: c.id)
def test_an_editors_cells_give_what_the_notebook_file_gives(case):
    raw = case.before.read_bytes()
    options = options_from_args([*case.cli_args, "--unsafe-fixes"])
    from_file = check_file(Run(options), case.before, raw)
    editor = EditorCells.of(str(case.before.with_suffix("")), _cells(raw))
    assert editor.path == case.before
    from_cells = check_source_of(Run(options), editor)
    assert from_file.error is None and from_cells.error is None
    assert from_cells.diagnostics == from_file.diagnostics
    assert (from_cells.fixed is None) == (from_file.fixed is None)
    if from_file.fixed is not None:
        fixed = {  # a `%%cell magic` cell is left alone: no text of it comes back
            n: text for n, text in _cells(from_file.fixed) if not text.startswith("%%")
        }
        assert editor.texts(from_cells.fixed) == fixed


def test_ipython_lines_come_back_in_the_cells_an_editor_is_given():
    case = next(c for c in NOTEBOOKS if c.name == "notebook_mesh_built_in_earlier_cell")
    raw = case.before.read_bytes()
    cells = [
        (n, text if text.startswith("%%") else f"%matplotlib inline\n{text}")
        for n, text in _cells(raw)
    ]
    options = options_from_args([*case.cli_args, "--unsafe-fixes"])
    editor = EditorCells.of("stages.ipynb", cells)
    result = check_source_of(Run(options), editor)
    assert result.error is None and result.fixed is not None
    texts = editor.texts(result.fixed)
    assert texts.keys() == {n for n, text in cells if not text.startswith("%%")}
    assert all(text.startswith("%matplotlib inline\n") for text in texts.values())
    changed = [n for n, text in cells if texts.get(n, text) != text]
    assert changed and [p.cell for p in editor.parts(result.fixed)] == changed


def test_a_fix_that_disturbs_the_cells_is_refused_for_an_editors_cells_too():
    editor = EditorCells.of("a.ipynb", [(1, "import jax\n"), (2, "x = 1\n")])
    code = editor.original.decode()
    without_a_marker = "".join(
        line for line in code.splitlines(True) if "cell 2" not in line
    )
    result = editor.result(without_a_marker.encode(), ())
    assert result.fixed is None and "cell boundaries" in (result.error or "")


def test_an_unchanged_cut_is_no_fix():
    """A fixed module whose cells read back as they were (without the final newline the
    module gave a cell that lacked one) changes nothing."""
    editor = EditorCells.of("a.ipynb", [(1, "x = 1")])
    assert editor.original.endswith(b"x = 1\n")
    assert editor.result(editor.original[:-1], ()).fixed is None
    assert editor.result(editor.original[:-1] + b"2\n", ()).fixed is not None


def test_an_editors_cells_name_their_lines_by_their_code_lines():
    editor = EditorCells.of("a", [(1, "a = 1\nb = 2\n"), (3, "c = 3\n")])
    assert editor.path == Path("a.ipynb")
    code = editor.original.decode().splitlines()
    first, last = editor.original_lines(Location(2, 1, 1), Location(1, 4, 3))
    assert (code[first - 1], code[last - 1]) == ("b = 2", "c = 3")


def test_the_kind_is_told_by_the_name_once():
    assert isinstance(source_of(Path("a.py"), b"x = 1\n"), PythonSource)
    assert isinstance(source_of(Path("a.ipynb"), b"{}"), NotebookSource)
    assert from_text(Path("a.py"), "# coding: latin-1\nx = 'é'\n").original.endswith(
        b"'\xe9'\n"
    )
    assert from_text(Path("a.ipynb"), '{"é": 1}').original == '{"é": 1}'.encode()


def test_a_python_file_is_stored_as_it_is_checked():
    result = FileResult(Path("a.py"), b"x = 1\n")
    assert as_stored(result) is result
    source = PythonSource(Path("a.py"), b"x = 1\n")
    assert source.code() == source.original
    assert source.result(b"x = 2\n", ()).fixed == b"x = 2\n"
    assert source.result(None, ()) == replace(result, fixed=None)


def test_only_the_sources_tell_a_notebook_by_its_name():
    """Outside jaxfix/sources/, code asks a Source (or its kind) what it needs, never whether
    a file is a notebook."""
    root = Path(__file__).resolve().parents[2] / "jaxfix"
    asking = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.parent.name != "sources"
        and any(word in path.read_text() for word in ("is_notebook", "in_document"))
    ]
    assert asking == []
