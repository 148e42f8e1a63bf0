"""scripts/no_harm.py stays usable: it reports a proposed change as a diff and a broken file as an
error, writes nothing, and exits 1 for findings."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from fixture_cases import ROOT, all_cases


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "no_harm", ROOT / "scripts" / "no_harm.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_harm_reports_changes_and_errors_without_writing(tmp_path: Path, capsys):
    case = next(
        c for c in all_cases() if c.fixed is not None and not c.header.get("options")
    )
    target = tmp_path / "positive.py"
    shutil.copyfile(case.before, target)
    # The rule's tokens keep the broken file past the prefilter, so it is parsed and fails.
    (tmp_path / "plain.py").write_text(
        "x = 1\n", encoding="utf-8"
    )  # no rule's tokens: not a candidate
    (tmp_path / "broken.py").write_text(
        "def broken(:\n" + case.before.read_text(encoding="utf-8"), encoding="utf-8"
    )

    code = _load_script().main(
        [str(tmp_path), "--jax-version", case.header["target-jax"], "--jobs", "1"]
    )

    report = capsys.readouterr().out
    assert code == 1
    assert target.read_bytes() == case.before.read_bytes(), (
        "the no-harm check wrote a file"
    )
    assert "# Internal errors (0)" in report
    errors = report.split("# Files in error (1)")[1].split("# Proposed changes")[0]
    assert "broken.py:1" in errors and "syntax error" in errors
    changes = report.split("# Proposed changes (1 files)")[1].split(
        "# Reported without a change"
    )[0]
    assert "+++ b/" in changes and "positive.py:" in changes
    assert "processed: 3" in report
    assert "candidates (pass the prefilter, so parsed): 2" in report


def test_no_harm_checks_notebooks_too(tmp_path: Path, capsys):
    """Notebooks are taken by default, as by jaxfix itself: a tree's `.ipynb` files are checked."""
    notebook = (
        ROOT / "fixtures" / "JAX001" / "notebook_mesh_built_in_earlier_cell.ipynb"
    )
    shutil.copyfile(notebook, tmp_path / "found.ipynb")
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")

    code = _load_script().main(
        [str(tmp_path), "--jax-version", "0.10.2", "--jobs", "1"]
    )

    report = capsys.readouterr().out
    assert code == 1
    errors = report.split("# Files in error (1)")[1].split("# Proposed changes")[0]
    assert "broken.ipynb:1:12: not a notebook: invalid JSON" in errors
    changes = report.split("# Proposed changes (1 files)")[1]
    assert "found.ipynb:cell 8:1:11: JAX001" in changes


def test_names_from_the_trees_are_printed_escaped(tmp_path: Path, capsys):
    """The trees checked are other people's: a name with a newline and an escape sequence is
    printed as jaxfix prints it, never as a line of its own or a terminal command."""
    case = next(
        c for c in all_cases() if c.fixed is not None and not c.header.get("options")
    )
    name = "x\n::error::y\x1b[2J.py"
    shutil.copyfile(case.before, tmp_path / name)
    (tmp_path / "z\n# Summary.py").write_text("def broken(:\nuse_abstract_mesh\n")

    _load_script().main(
        [str(tmp_path), "--jax-version", case.header["target-jax"], "--jobs", "1"]
    )

    report = capsys.readouterr().out
    assert "x\\n::error::y\\x1b[2J.py" in report and "z\\n# Summary.py" in report
    assert "\x1b" not in report
    assert not any(line.startswith("::") for line in report.splitlines())
    assert report.splitlines().count("# Summary") == 1
