"""A fix whose edit belongs in another module than the line that raises (jaxfix/codemods/
module_edits.py): the report stays at the raising line, the edit is written in the module where
the value is written, whichever paths the run is given; two errors wanting one place set two
ways get neither; a module changed since is not written."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixture_cases import ROOT
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.cli.main import cli
from jaxfix.codemods.module_edits import module_edit
from jaxfix.ground.diagnostics import Diagnostic, FileResult, Location, Safety
from jaxfix.write.data_edits import write_data_edits

CASE = (
    ROOT / "fixtures" / "engine" / "abstract_mesh_sized_by_a_constant_of_the_launcher"
)


def _jaxfix(*args: str) -> str:
    result = CliRunner().invoke(
        cli, ["--no-cache", "-j", "1", *args], catch_exceptions=False
    )
    assert result.exit_code in (0, 1), result.output
    return result.stdout


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    tree = tmp_path / "project"
    shutil.copytree(CASE, tree, ignore=shutil.ignore_patterns("*.fixed.py"))
    (tree / ".git").mkdir()
    monkeypatch.chdir(tree)
    return tree


@pytest.mark.parametrize("given", [".", "pkg", "pkg/stages.py"])
def test_the_module_where_the_sizes_are_written_is_fixed_whatever_paths_are_given(
    project, given
):
    _jaxfix("--unsafe-fixes", given)
    assert (project / "main.py").read_bytes() == (CASE / "main.fixed.py").read_bytes()
    assert (project / "pkg" / "stages.py").read_bytes() == (
        CASE / "pkg" / "stages.py"
    ).read_bytes()


def test_the_report_is_at_the_raising_line_and_names_the_place(project):
    shown = _jaxfix("--check", "--format", "json", ".")
    assert '"path": "pkg/stages.py"' in shown
    assert (
        '"path": "main.py"' in shown
    )  # the related place, and no diagnostic of its own
    assert shown.count('"code": "JAX002"') == 2  # the rule's record and one diagnostic
    preview = _jaxfix("--diff", "--unsafe-fixes", "pkg/stages.py")
    assert "-EVAL_SHAPE = (2, 2)\n+EVAL_SHAPE = (4, 2)" in preview
    document = json.loads(
        _jaxfix("--format", "json", "--diff", "--unsafe-fixes", "pkg/stages.py")
    )
    (fixed,) = [f for f in document["files"] if f["path"] == "main.py"]
    assert fixed["status"] == "changed" and not fixed["diagnostics"]
    assert "+EVAL_SHAPE = (4, 2)" in fixed["diff"]
    (edit,) = document["files"][0]["diagnostics"][0]["fix"]["edits"]
    assert edit["path"] == "main.py" and edit["content"] == "EVAL_SHAPE = (4, 2)\n"


def test_the_module_given_alone_has_no_finding_of_its_own(project):
    """main.py's findings are none with `.` too: the diagnostic is the raising line's."""
    _jaxfix("--unsafe-fixes", "main.py")
    assert (project / "main.py").read_bytes() == (CASE / "main.py").read_bytes()


def test_a_method_called_through_an_object_another_module_is_handed_is_not_fixed(
    project,
):
    """The trainer is handed to a report of another module, which calls its `_eval_shapes`
    under a mesh of the eval mesh's size (imports of the trainer's module: none): that call
    works today and the engine does not count its context, so the launcher is left."""
    (project / "pkg" / "report.py").write_text(
        "import jax\n\nfrom pkg import meshes\n\n\ndef summarize(trainer):\n"
        "    with jax.set_mesh(meshes.build((2, 2))):\n"
        "        return trainer._eval_shapes(4)\n"
    )
    main = project / "main.py"
    main.write_text(
        main.read_text()
        .replace("from pkg import meshes\n", "from pkg import meshes, report\n")
        .replace(
            "    print(trainer.evaluate(8))\n",
            "    print(report.summarize(trainer))\n    print(trainer.evaluate(8))\n",
        )
    )
    before = main.read_bytes()
    shown = _jaxfix("--unsafe-fixes", ".")
    assert main.read_bytes() == before
    assert "pkg/stages.py:11" in shown and "JAX002" in shown


def test_two_errors_wanting_one_place_set_two_ways_get_neither(project):
    """The eval mesh is also entered by another method inside an abstract mesh of size 16:
    (4, 2) for one, (8, 2) for the other; both reports name the other, nothing is written."""
    stages = project / "pkg" / "stages.py"
    stages.write_text(
        stages.read_text().replace(
            "import jax.numpy as jnp\n",
            "import jax.numpy as jnp\nfrom jax.sharding import AbstractMesh, AxisType\n",
        )
        + "\n    def serve_shapes(self):\n"
        "        wide = AbstractMesh((8, 2), ('data', 'model'), axis_types=(AxisType.Explicit,) * 2)\n"
        "        with jax.sharding.use_abstract_mesh(wide):\n"
        "            with jax.sharding.use_abstract_mesh(self.eval_mesh.abstract_mesh):\n"
        "                return jax.eval_shape(lambda: jnp.zeros((8, 4))).shape\n"
    )
    main = project / "main.py"
    main.write_text(
        main.read_text().replace(
            "    print(trainer.evaluate(8))\n",
            "    print(trainer.evaluate(8))\n    print(trainer.serve_shapes())\n",
        )
    )
    before = main.read_bytes()
    shown = " ".join(_jaxfix("--unsafe-fixes", ".").split())
    assert main.read_bytes() == before
    assert "the fix of JAX002 at pkg/stages.py:12 changes the same place" in shown
    assert "the fix of JAX002 at pkg/stages.py:22 changes the same place" in shown
    # the label says what happened: refused, not offered with the flag already given
    assert "available with --unsafe-fixes" not in shown
    assert shown.count("[fix not written (unsafe):") == 2
    preview = CliRunner().invoke(
        cli, ["--no-cache", "-j", "1", "--diff", "--unsafe-fixes", "."]
    )
    assert not preview.stdout  # nothing would be written
    left = " ".join(preview.stderr.split())
    assert "not in the diff: 2 findings (2 fixes not written)" in left
    annotations = _jaxfix("--unsafe-fixes", "--format", "github", ".")
    assert "JAX002" in annotations and "fix available" not in annotations


def test_a_module_changed_since_the_fix_was_made_is_not_written(tmp_path):
    import libcst as cst

    path = tmp_path / "config.py"
    path.write_bytes(b"SHAPE = (2, 2)\n")
    source = path.read_bytes()
    module = Module(path, ast.parse(source), source)
    literal = module.tree.body[0].value.elts[0]  # type: ignore[attr-defined]
    edit = module_edit(module, literal, lambda _: cst.Integer("4"))
    assert edit is not None and edit.text == b"4" and edit.span == (9, 10)
    fix = Diagnostic(
        "JAX002",
        "sizes",
        Location(1, 1),
        Location(1, 2),
        fix_title="resize",
        fix_safety=Safety.UNSAFE,
        applied=True,
        data_edits=(edit,),
    )
    changed = b"SHAPE = (2, 2)  # changed\n"
    path.write_bytes(changed)
    (result,) = write_data_edits(
        [FileResult(tmp_path / "stages.py", b"", diagnostics=(fix,))],
        (str(tmp_path),),
    )
    assert path.read_bytes() == changed
    assert not result.diagnostics[0].applied
    assert "config.py changed since the run" in result.diagnostics[0].message


def test_an_edit_is_placed_by_bytes_after_wider_characters(tmp_path):
    """`ast`'s columns are UTF-8 byte offsets: a literal after non-ASCII text is placed
    exactly; a file of `\\r` line breaks is refused (lines counted otherwise)."""
    import libcst as cst

    source = "NAME, SHAPE = 'données', (2, 2)\n".encode()
    module = Module(tmp_path / "m.py", ast.parse(source), source)
    shape = module.tree.body[0].value.elts[1]  # type: ignore[attr-defined]
    edit = module_edit(module, shape.elts[0], lambda _: cst.Integer("4"))
    assert edit is not None
    assert source[: edit.span[0]] + edit.text + source[edit.span[1] :] == (
        "NAME, SHAPE = 'données', (4, 2)\n".encode()
    )
    crlf = b"SHAPE = (2, 2)\r\n"
    module = Module(tmp_path / "c.py", ast.parse(crlf), crlf)
    literal = module.tree.body[0].value.elts[0]  # type: ignore[attr-defined]
    assert module_edit(module, literal, lambda _: cst.Integer("4")) is None


def test_code_from_stdin_comes_back_and_no_other_file_is_written(project):
    stages = (project / "pkg" / "stages.py").read_bytes()
    result = CliRunner().invoke(
        cli,
        ["--no-cache", "--unsafe-fixes", "--stdin-filename", "pkg/stages.py", "-"],
        input=stages,
        catch_exceptions=False,
    )
    assert result.exit_code == 1  # a finding is left
    assert result.stdout_bytes == stages
    assert (project / "main.py").read_bytes() == (CASE / "main.py").read_bytes()
    assert "code from stdin changes no other file" in " ".join(result.stderr.split())


def test_a_preview_leaves_out_a_file_outside_the_project_as_the_write_does(
    project, tmp_path
):
    """The constant is imported from a folder of the config's `src` outside the project's
    root: the write refuses it, so `--diff` shows no diff of it and says why, as the write."""
    shapes = tmp_path / "lib" / "shapes.py"
    shapes.parent.mkdir()
    shapes.write_text("EVAL_SHAPE = (2, 2)\n")
    (project / "pyproject.toml").write_text('[tool.jaxfix]\nsrc = [".", "../lib"]\n')
    main = project / "main.py"
    main.write_text(
        main.read_text().replace(
            "EVAL_SHAPE = (2, 2)\n", "from shapes import EVAL_SHAPE\n"
        )
    )
    preview = CliRunner().invoke(
        cli, ["--no-cache", "-j", "1", "--diff", "--unsafe-fixes", "."]
    )
    assert not preview.stdout
    refused = "shapes.py is outside the project: not written"
    assert refused in " ".join(preview.stderr.split())
    assert refused in " ".join(_jaxfix("--dry-run", "--unsafe-fixes", ".").split())
    assert refused in " ".join(_jaxfix("--unsafe-fixes", ".").split())
    assert shapes.read_text() == "EVAL_SHAPE = (2, 2)\n"


@pytest.mark.parametrize(
    "case",
    [
        "gathered_input_sized_by_a_constant_of_the_launcher_sharding_also_placing_a_bias",
        "abstract_mesh_sized_by_a_constant_of_the_launcher_model_handed_to_a_report",
    ],
)
def test_an_edit_refused_for_a_holder_other_code_reads_names_the_place(
    tmp_path, monkeypatch, case
):
    """The launcher's constant is not changed, and the report says where it is written and
    what to set it to (a related location of main.py)."""
    tree = tmp_path / "project"
    shutil.copytree(ROOT / "fixtures" / "engine" / case, tree)
    (tree / ".git").mkdir()
    monkeypatch.chdir(tree)
    before = (tree / "main.py").read_bytes()
    shown = json.loads(_jaxfix("--unsafe-fixes", "--format", "json", "."))
    assert (tree / "main.py").read_bytes() == before
    (diagnostic,) = [d for f in shown["files"] for d in f["diagnostics"]]
    assert "sizes are written at main.py:" in diagnostic["message"]
    assert any(r.get("path") == "main.py" for r in diagnostic["related"])
