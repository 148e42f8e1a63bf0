"""`jaxfix server` driven by a real LSP client (pygls' LanguageClient over stdio): the protocol
details. tests/server/test_server_neovim.py drives it with Neovim's built-in client."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip(
    "pygls", reason="jaxfix server needs pygls (pip install 'jaxfix[server]')"
)

from click.testing import CliRunner
from lsprotocol import types as t

from jaxfix.cache.store import Cache, cache_dir
from jaxfix.cli.main import cli
from jaxfix.cli.rule_docs import explain_markdown
from jaxfix.codemods import RULES
from jaxfix.settings.config import build_options, load, project_roots
from lsp_client import ROOT, Editor, apply, edits_for
from snippets import REPORTED, VIOLATION, VIOLATION_LINE

FIXTURE = ROOT / "fixtures" / "JAX001" / "bare_jit_decorator_lower.py"
# The inner mesh is resized: an unsafe fix.
JAX002 = """\
import jax.numpy as jnp
from jax.sharding import AbstractMesh, use_abstract_mesh

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((2, 4), ("data", "model"))):
        pass
"""


def run(body):
    """Run one test's coroutine with an editor on `root`, always stopping the server."""

    async def main(root: Path, **kwargs):
        editor = Editor(root, **kwargs)
        await editor.start()
        try:
            await body(editor)
        finally:
            await editor.stop()

    return main


def _lines(result_range: t.Range) -> tuple[int, int]:
    return result_range.start.line, result_range.end.line


def test_diagnostics_hover_quick_fix_and_fix_all_on_a_fixture(tmp_path):
    path = tmp_path / FIXTURE.name
    shutil.copy(FIXTURE, path)
    expected = FIXTURE.with_suffix(".fixed.py").read_text()

    async def body(editor: Editor) -> None:
        uri = editor.open(path)
        published = await editor.diagnostics(uri)
        (diagnostic,) = published.diagnostics
        assert published.version == 1
        assert (diagnostic.code, diagnostic.source, diagnostic.severity) == (
            "JAX001",
            "jaxfix",
            t.DiagnosticSeverity.Error,
        )
        assert diagnostic.range == t.Range(
            t.Position(20, 10), t.Position(20, 24)
        )  # `shift.lower(x)`
        assert "lowering_platforms" in diagnostic.message

        hover = await editor.hover(uri, t.Position(20, 15))
        assert hover is not None and hover.contents.kind == t.MarkupKind.Markdown
        assert hover.contents.value == explain_markdown(RULES["JAX001"])
        assert await editor.hover(uri, t.Position(3, 0)) is None  # no diagnostic there

        actions = await editor.actions(
            uri, t.Range(t.Position(20, 12), t.Position(20, 12)), [diagnostic]
        )
        kinds = {action.kind: action for action in actions}
        assert set(kinds) == {t.CodeActionKind.QuickFix, "source.fixAll.jaxfix"}
        quick = kinds[t.CodeActionKind.QuickFix]
        assert (
            quick.is_preferred and "unsafe" not in quick.title and quick.edit is None
        )  # resolved on demand
        resolved = await editor.resolve(quick)
        (change,) = resolved.edit.document_changes
        assert (change.text_document.uri, change.text_document.version) == (uri, 1)
        assert (
            len(change.edits) == 1 and change.edits[0].range.start.line == 20
        )  # one minimal edit
        assert apply(path.read_text(), edits_for(resolved, uri)) == expected

        (fix_all,) = await editor.actions(
            uri, t.Range(t.Position(0, 0), t.Position(0, 0)), only=["source.fixAll"]
        )
        assert fix_all.kind == "source.fixAll.jaxfix"
        assert (
            apply(path.read_text(), edits_for(await editor.resolve(fix_all), uri))
            == expected
        )
        assert (
            await editor.actions(
                uri, t.Range(t.Position(0, 0), t.Position(0, 0)), only=["refactor"]
            )
            == []
        )
        assert editor.logs == []
        assert path.read_text() == FIXTURE.read_text()  # the server never writes

    asyncio.run(run(body)(tmp_path))


def test_unsafe_fixes_are_labelled_and_never_in_fix_all(tmp_path):
    path = tmp_path / "both.py"
    path.write_text(VIOLATION + "\n" + JAX002.replace("import jax.numpy as jnp\n", ""))

    async def body(editor: Editor) -> None:
        uri = editor.open(path)
        published = await editor.diagnostics(uri)
        codes = [d.code for d in published.diagnostics]
        assert codes == ["JAX001", "JAX002"]
        jax002 = published.diagnostics[1]
        (quick,) = await editor.actions(
            uri, jax002.range, [jax002], only=[t.CodeActionKind.QuickFix]
        )
        assert "unsafe" in quick.title and not quick.is_preferred
        fixed = apply(path.read_text(), edits_for(await editor.resolve(quick), uri))
        assert (
            "AbstractMesh((8, 4)" in fixed.split("use_abstract_mesh(")[-1]
        )  # the inner mesh resized
        assert ".trace(x)" not in fixed  # only this diagnostic's fix

        (fix_all,) = await editor.actions(
            uri, jax002.range, only=["source.fixAll.jaxfix"]
        )
        fixed_all = apply(
            path.read_text(), edits_for(await editor.resolve(fix_all), uri)
        )
        assert (
            ".trace(x).lower(" in fixed_all and "AbstractMesh((2, 4)" in fixed_all
        )  # the unsafe fix left out

    asyncio.run(run(body)(tmp_path))


def test_only_unsafe_fixes_offer_no_fix_all(tmp_path):
    path = tmp_path / "inner.py"
    path.write_text(JAX002)

    async def body(editor: Editor) -> None:
        uri = editor.open(path)
        (diagnostic,) = (await editor.diagnostics(uri)).diagnostics
        assert diagnostic.code == "JAX002"
        assert await editor.actions(uri, diagnostic.range, only=["source.fixAll"]) == []

    asyncio.run(run(body)(tmp_path))


def test_columns_are_utf16_code_units_and_edits_keep_non_ascii_text(tmp_path):
    # U+1D70B takes two UTF-16 units, é one: the call starts at character 16, UTF-16 column 17.
    line = 'note = "𝜋é"; lowered = jax.jit(jnp.sin).lower(x)'
    path = tmp_path / "wide.py"
    path.write_text(
        VIOLATION.replace("lowered = jax.jit(jnp.sin).lower(x)", line), encoding="utf-8"
    )

    expected = subprocess.run(  # the CLI's fix of the same text, from stdin
        [sys.executable, "-m", "jaxfix", "-"],
        input=path.read_bytes(),
        capture_output=True,
        check=False,
        cwd=tmp_path,
    ).stdout.decode("utf-8")

    async def body(editor: Editor) -> None:
        uri = editor.open(path)
        (diagnostic,) = (await editor.diagnostics(uri)).diagnostics
        start = line.index("jax.jit")
        assert diagnostic.range.start == t.Position(VIOLATION_LINE - 1, start + 1)
        assert diagnostic.range.end == t.Position(VIOLATION_LINE - 1, len(line) + 1)
        (quick,) = await editor.actions(
            uri, diagnostic.range, [diagnostic], only=[t.CodeActionKind.QuickFix]
        )
        fixed = apply(
            path.read_text(encoding="utf-8"),
            edits_for(await editor.resolve(quick), uri),
        )
        assert (
            fixed == expected
            and 'note = "𝜋é"; lowered = jax.jit(jnp.sin).trace(x)' in fixed
        )

    asyncio.run(run(body)(tmp_path))


def test_a_crash_in_a_rule_or_of_the_analysis_process_is_one_logged_message_and_the_server_lives_on(
    tmp_path,
):
    # The crashing test rule is registered in the server's processes as the toy rules are in
    # the tests' own: by the rule registry, from a sitecustomize on their path.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        textwrap.dedent("""
        from jaxfix.codemods import RULES
        from toy_rules import Crashing, Dying
        RULES[Crashing.code] = Crashing
        RULES[Dying.code] = Dying
    """)
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "boom.py").write_text("crash_here()\n")
    (work / "fine.py").write_text(VIOLATION)
    (work / "evil\njaxfix: forged\x1b[2J.py").write_text("crash_here()\n")
    (work / "dies.py").write_text("die_here()\n")

    async def body(editor: Editor) -> None:
        boom = editor.open(work / "boom.py")
        assert (await editor.diagnostics(boom)).diagnostics == ()
        for version in (2, 3):  # the same failure again is not logged again
            editor.change(boom, f"crash_here()\n# edit {version}\n", version)
            await editor.diagnostics(boom, version)
        fine = editor.open(work / "fine.py")
        (diagnostic,) = (await editor.diagnostics(fine)).diagnostics
        assert diagnostic.code == "JAX001"
        assert len(editor.logs) == 1, editor.logs
        assert (
            "boom.py" in editor.logs[0]
            and "RuntimeError: the test rule crashed" in editor.logs[0]
        )
        evil = editor.open(work / "evil\njaxfix: forged\x1b[2J.py")
        await editor.diagnostics(evil)
        assert (
            len(editor.logs) == 2
            and "\n" not in editor.logs[1]
            and "\x1b" not in editor.logs[1]
        )
        assert "evil\\njaxfix: forged\\x1b[2J.py" in editor.logs[1]
        # A rule that kills the analysis process: one message, a new process for what follows.
        dies = editor.open(work / "dies.py")
        assert (await editor.diagnostics(dies)).diagnostics == ()
        assert (
            len(editor.logs) == 3
            and "dies.py: the analysis process stopped (exit code -9)" in editor.logs[2]
        )
        editor.change(fine, VIOLATION + "# edited\n", 2)
        assert [d.code for d in (await editor.diagnostics(fine, 2)).diagnostics] == [
            "JAX001"
        ]

    asyncio.run(run(body)(work, python_path=(site, ROOT / "tests")))


def test_a_huge_file_does_not_block_and_a_newer_version_stops_its_analysis(tmp_path):
    small, huge = tmp_path / "small.py", tmp_path / "huge.py"
    small.write_text(VIOLATION)
    # 100,000 lines: about a minute of analysis on one core.
    huge_text = VIOLATION + "".join(f"y{i} = {i}\n" for i in range(100_000))
    huge.write_text(huge_text)

    async def body(editor: Editor) -> None:
        small_uri = editor.open(small)
        (diagnostic,) = (await editor.diagnostics(small_uri)).diagnostics
        huge_uri = editor.open(huge)
        await asyncio.sleep(1)  # its analysis is under way
        started = time.monotonic()
        hover = await asyncio.wait_for(
            editor.hover(small_uri, diagnostic.range.start), 10
        )
        assert hover is not None and "JAX001" in hover.contents.value
        assert time.monotonic() - started < 5
        assert not [p for p in editor.published if p.uri == huge_uri]  # still analysing

        editor.change(huge_uri, VIOLATION, 2)
        started = time.monotonic()
        published = await editor.diagnostics(huge_uri, timeout=60)
        assert published.version == 2 and [d.code for d in published.diagnostics] == [
            "JAX001"
        ]
        assert (
            time.monotonic() - started < 30
        )  # the 100,000-line analysis was stopped, not waited for
        await asyncio.sleep(1)
        assert [p.version for p in editor.published if p.uri == huge_uri] == [2]

    asyncio.run(run(body)(tmp_path))


def test_changes_in_quick_succession_are_analysed_once(tmp_path):
    path = tmp_path / "typing.py"
    path.write_text("import jax\n")

    async def body(editor: Editor) -> None:
        uri = editor.open(path)
        await editor.diagnostics(uri, 1)
        for version in range(2, 7):
            editor.change(
                uri, VIOLATION if version == 6 else VIOLATION[: 40 * version], version
            )
            await asyncio.sleep(0.02)
        published = await editor.diagnostics(uri, 6)
        assert [d.code for d in published.diagnostics] == ["JAX001"]
        await asyncio.sleep(0.5)
        assert [p.version for p in editor.published if p.uri == uri] == [1, 6]

    asyncio.run(run(body)(tmp_path))


def test_saving_an_imported_module_checks_its_importers_again(tmp_path):
    shutil.copytree(
        ROOT / "fixtures" / "JAX002" / "project_relative_import_outer_mesh",
        tmp_path,
        dirs_exist_ok=True,
    )
    evaluate, meshes = tmp_path / "pkg" / "evaluate.py", tmp_path / "pkg" / "meshes.py"

    async def body(editor: Editor) -> None:
        uri = editor.open(evaluate)
        (diagnostic,) = (await editor.diagnostics(uri)).diagnostics
        assert (
            diagnostic.code == "JAX002"
        )  # the outer mesh, from meshes.py, has 8 devices
        meshes_uri = editor.open(meshes)
        await editor.diagnostics(meshes_uri)
        text = meshes.read_text().replace("AbstractMesh((4, 2)", "AbstractMesh((8, 2)")
        editor.change(meshes_uri, text, 2)
        meshes.write_text(text)
        editor.client.text_document_did_save(
            t.DidSaveTextDocumentParams(t.TextDocumentIdentifier(meshes_uri))
        )
        assert (await editor.diagnostics(uri)).diagnostics == ()  # now both have 16

    asyncio.run(run(body)(tmp_path))


def test_the_projects_config_selects_and_excludes_as_for_the_cli(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxfix]\nignore = ["JAX002"]\nexclude = ["generated"]\n'
    )
    (tmp_path / "src").mkdir()
    (tmp_path / "generated").mkdir()
    both = tmp_path / "src" / "both.py"
    both.write_text(VIOLATION + "\n" + JAX002.replace("import jax.numpy as jnp\n", ""))
    skipped = tmp_path / "generated" / "g.py"
    skipped.write_text(VIOLATION)

    async def body(editor: Editor) -> None:
        uri = editor.open(both)
        assert [d.code for d in (await editor.diagnostics(uri)).diagnostics] == [
            "JAX001"
        ]
        assert (await editor.diagnostics(editor.open(skipped))).diagnostics == ()

    asyncio.run(run(body)(tmp_path))
    cli = subprocess.run(
        [sys.executable, "-m", "jaxfix", "--check", "-q", "."],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    printed = cli.stdout + cli.stderr
    assert (
        "both.py:7:11: JAX001" in printed
        and "JAX002" not in printed
        and "g.py" not in printed
    )


def test_the_result_cache_is_the_clis(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(REPORTED)

    async def body(editor: Editor) -> None:
        (diagnostic,) = (await editor.diagnostics(editor.open(path))).diagnostics
        assert diagnostic.code == "JAX002"

    asyncio.run(run(body)(tmp_path))
    assert (tmp_path / ".jaxfix_cache").is_dir()
    # The CLI's run after the server's needs no parsing: it never imports libcst.
    probe = "import sys\nfrom jaxfix.cli.main import main\ntry:\n    main()\nfinally:\n    print('libcst' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe, "--check", "-q", "a.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert "a.py:4:10: JAX002" in done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "False"


def test_no_cache_is_written_outside_the_workspace_folder(tmp_path):
    """A document opened from outside the workspace folder (a library's, by go-to-definition),
    alone or in a project of its own: checked, and nothing written beside it."""
    (tmp_path / "workspace").mkdir()
    library = tmp_path / "library"
    (library / "pkg").mkdir(parents=True)
    (library / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (library / "pkg" / "a.py").write_text(REPORTED)
    (tmp_path / "b.py").write_text(REPORTED)

    async def body(editor: Editor) -> None:
        for path in (library / "pkg" / "a.py", tmp_path / "b.py"):
            (diagnostic,) = (await editor.diagnostics(editor.open(path))).diagnostics
            assert diagnostic.code == "JAX002"

    asyncio.run(run(body)(tmp_path / "workspace"))
    assert not list(tmp_path.rglob(".jaxfix_cache"))


def test_the_server_reads_what_the_cli_cached(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(REPORTED)
    subprocess.run(
        [sys.executable, "-m", "jaxfix", "--check", "-q", "."],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    # The CLI's entry, found with the settings a run in the workspace folder has; its message is
    # changed through the cache's own API, so only a read of this entry can show it.
    config = load(None, [path])
    options = build_options(config, {})
    roots = project_roots(config, [tmp_path])
    cache = Cache(cache_dir(None, config, [tmp_path]), options, roots=roots)
    cached = cache.get(path, path.read_bytes())
    body = json.loads(cache._entry(path).read_bytes().split(b"\n", 2)[2])
    assert cached is not None and cached.diagnostics[0].code == "JAX002"
    cache.put(
        replace(
            cached,
            diagnostics=(
                replace(cached.diagnostics[0], message="as the CLI's cache has it"),
            ),
        )
    )

    async def body(editor: Editor) -> None:
        (diagnostic,) = (await editor.diagnostics(editor.open(path))).diagnostics
        assert diagnostic.message == "as the CLI's cache has it"

    asyncio.run(run(body)(tmp_path))


def test_notebook_cells_get_their_own_diagnostics_and_fixes(tmp_path):
    source = ROOT / "fixtures" / "JAX002" / "notebook_mesh_constants_across_cells.ipynb"
    notebook = json.loads(source.read_text())
    fixed_cells = json.loads(source.with_suffix(".fixed.ipynb").read_text())["cells"]
    path = tmp_path / "stages.ipynb"
    shutil.copy(source, path)
    cells, texts = [], {}
    for number, cell in enumerate(notebook["cells"]):
        uri = f"vscode-notebook-cell:{path.as_posix()}#cell{number}"
        texts[uri] = "".join(cell["source"])
        kind = (
            t.NotebookCellKind.Code
            if cell["cell_type"] == "code"
            else t.NotebookCellKind.Markup
        )
        cells.append(
            (
                t.NotebookCell(kind, uri),
                t.TextDocumentItem(
                    uri,
                    "python" if kind == t.NotebookCellKind.Code else "markdown",
                    1,
                    texts[uri],
                ),
            )
        )

    async def body(editor: Editor) -> None:
        editor.client.notebook_document_did_open(
            t.DidOpenNotebookDocumentParams(
                t.NotebookDocument(
                    path.as_uri(), "jupyter-notebook", 1, [cell for cell, _ in cells]
                ),
                [item for _, item in cells],
            )
        )
        inner = cells[3][0].document
        published = await editor.diagnostics(inner)
        (diagnostic,) = published.diagnostics
        assert (
            diagnostic.code == "JAX002" and diagnostic.range.start.line == 2
        )  # line 3 of cell 4
        assert (
            texts[inner]
            .splitlines()[2][diagnostic.range.start.character :]
            .startswith("use_abstract_mesh(STAGE2)")
        )
        others = {p.uri: p.diagnostics for p in editor.published if p.uri != inner}
        assert set(others) <= set(texts) and not any(others.values())
        (quick,) = await editor.actions(
            inner, diagnostic.range, [diagnostic], only=[t.CodeActionKind.QuickFix]
        )
        assert "unsafe" in quick.title
        resolved = await editor.resolve(quick)
        changed = {
            change.text_document.uri for change in resolved.edit.document_changes
        }
        for uri in changed:
            number = int(uri.rpartition("#cell")[2])
            assert apply(texts[uri], edits_for(resolved, uri)) == "".join(
                fixed_cells[number]["source"]
            )
        assert changed  # the resized mesh is in another cell than the diagnostic

    asyncio.run(run(body)(tmp_path))


def test_a_notebook_open_as_text_gets_diagnostics_and_fixes_in_its_json(tmp_path):
    """A client without notebook documents may show the .ipynb file itself: places are its lines."""
    source = ROOT / "fixtures" / "JAX002" / "notebook_mesh_constants_across_cells.ipynb"
    path = tmp_path / "stages.ipynb"
    shutil.copy(source, path)

    async def body(editor: Editor) -> None:
        uri = editor.open(path)
        (diagnostic,) = (await editor.diagnostics(uri)).diagnostics
        line = path.read_text().splitlines()[diagnostic.range.start.line]
        assert diagnostic.code == "JAX002" and diagnostic.message.startswith(
            "cell 4:3:"
        )
        assert line[diagnostic.range.start.character :].startswith(
            "use_abstract_mesh(STAGE2)"
        )
        (quick,) = await editor.actions(
            uri, diagnostic.range, [diagnostic], only=[t.CodeActionKind.QuickFix]
        )
        fixed = apply(path.read_text(), edits_for(await editor.resolve(quick), uri))
        assert fixed == source.with_suffix(".fixed.ipynb").read_text()

    asyncio.run(run(body)(tmp_path))


LAUNCHER = (
    ROOT / "fixtures" / "engine" / "abstract_mesh_sized_by_a_constant_of_the_launcher"
)
SERVE_SHAPES = """
    def serve_shapes(self):
        wide = AbstractMesh((8, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
        with jax.sharding.use_abstract_mesh(wide):
            with jax.sharding.use_abstract_mesh(self.eval_mesh.abstract_mesh):
                return jax.eval_shape(lambda: jnp.zeros((8, 4))).shape
"""


@pytest.mark.parametrize("conflict", [False, True])
def test_a_fix_of_another_module_edits_it_unless_the_command_line_refuses_it(
    tmp_path, conflict
):
    """The quick fix of the raising line changes the launcher's constant, as the command line
    writes it; where another fix of the file wants that place another way, the command line
    writes neither, and the quick fix has no edit."""
    shutil.copytree(
        LAUNCHER,
        tmp_path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("*.fixed.py"),
    )
    stages, main = tmp_path / "pkg" / "stages.py", tmp_path / "main.py"
    if conflict:
        stages.write_text(
            stages.read_text().replace(
                "import jax.numpy as jnp\n",
                "import jax.numpy as jnp\n"
                "from jax.sharding import AbstractMesh, AxisType\n",
            )
            + SERVE_SHAPES
        )
        main.write_text(
            main.read_text().replace(
                "    print(trainer.evaluate(8))\n",
                "    print(trainer.evaluate(8))\n    print(trainer.serve_shapes())\n",
            )
        )

    async def body(editor: Editor) -> None:
        uri = editor.open(stages)
        published = await editor.diagnostics(uri)
        first = published.diagnostics[0]
        assert first.code == "JAX002"
        (quick,) = await editor.actions(
            uri, first.range, [first], only=[t.CodeActionKind.QuickFix]
        )
        resolved = await editor.resolve(quick)
        if conflict:
            assert resolved.edit is None
            assert any("changes the same place" in line for line in editor.logs)
            return
        assert edits_for(resolved, uri) == []  # the raising module is left as it is
        assert (
            apply(main.read_text(), edits_for(resolved, main.as_uri()))
            == (LAUNCHER / "main.fixed.py").read_text()
        )
        assert main.read_text() == (LAUNCHER / "main.py").read_text()  # never written

    asyncio.run(run(body)(tmp_path))


SERVER = """\
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, AxisType


class Server:
    def __init__(self, eval_mesh):
        self.eval_mesh = eval_mesh

    def serve_shapes(self):
        wide = AbstractMesh((8, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
        with jax.sharding.use_abstract_mesh(wide):
            with jax.sharding.use_abstract_mesh(self.eval_mesh.abstract_mesh):
                return jax.eval_shape(lambda: jnp.zeros((8, 4))).shape
"""


def test_a_fix_of_another_module_refused_by_a_fix_of_another_file_has_no_edit(
    tmp_path,
):
    """The trainer also hands the eval mesh to a server of another file, which enters it in
    a mesh of size 16: the command line's run of the project writes neither fix of the
    launcher's constant; the quick fix of the trainer's line, which checks that file too,
    has no edit."""
    shutil.copytree(
        LAUNCHER,
        tmp_path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("*.fixed.py"),
    )
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg" / "serve.py").write_text(SERVER)
    stages, main = tmp_path / "pkg" / "stages.py", tmp_path / "main.py"
    stages.write_text(
        stages.read_text()
        .replace(
            "import jax.numpy as jnp\n",
            "import jax.numpy as jnp\n\nfrom pkg.serve import Server\n",
        )
        .replace(
            "        self.eval_mesh = eval_mesh\n",
            "        self.eval_mesh = eval_mesh\n        self.server = Server(eval_mesh)\n",
        )
        + "\n    def run(self):\n        return self.evaluate(8), self.server.serve_shapes()\n"
    )
    main.write_text(main.read_text().replace("trainer.evaluate(8)", "trainer.run()"))
    shown = CliRunner().invoke(
        cli, ["--no-cache", "-j", "1", "--diff", "--unsafe-fixes", str(tmp_path)]
    )
    assert "(2 fixes not written)" in " ".join(shown.stderr.split())

    async def body(editor: Editor) -> None:
        uri = editor.open(stages)
        first = (await editor.diagnostics(uri)).diagnostics[0]
        assert first.code == "JAX002"
        (quick,) = await editor.actions(
            uri, first.range, [first], only=[t.CodeActionKind.QuickFix]
        )
        assert (await editor.resolve(quick)).edit is None
        assert any(
            "pkg/serve.py:13 changes the same place of main.py" in line
            for line in editor.logs
        )

    asyncio.run(run(body)(tmp_path))


def test_a_fix_of_a_module_outside_the_workspace_folder_has_no_edit(tmp_path):
    """The workspace folder is the package; the project (and the launcher whose constant
    the fix changes) is the folder above: the diagnostic is the command line's, the quick
    fix edits nothing outside the folder."""
    shutil.copytree(
        LAUNCHER,
        tmp_path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("*.fixed.py"),
    )
    (tmp_path / ".git").mkdir()
    stages = tmp_path / "pkg" / "stages.py"

    async def body(editor: Editor) -> None:
        uri = editor.open(stages)
        first = (await editor.diagnostics(uri)).diagnostics[0]
        assert first.code == "JAX002"
        (quick,) = await editor.actions(
            uri, first.range, [first], only=[t.CodeActionKind.QuickFix]
        )
        assert (await editor.resolve(quick)).edit is None
        assert any(
            "main.py is outside the workspace folder: not written" in line
            for line in editor.logs
        )

    asyncio.run(run(body)(tmp_path / "pkg"))
