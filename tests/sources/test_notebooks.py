"""Jupyter notebooks: found, checked as one module of code cells, fixed inside the touched cells'
`source` only, placed by cell in every output, refused with one line when unreadable.

The notebook fixtures themselves (output, idempotence, must-not-change, real JAX on both tiers)
run with every other fixture in test_fixtures.py and test_real_jax.py.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from fixture_cases import FIXTURES, ROOT, all_cases
from helpers import options_from_args, run_engine
from jaxfix.cache.store import Cache
from jaxfix.cli.main import cli
from jaxfix.ground.diagnostics import Location
from jaxfix.sources import notebook as nb
from jaxfix.workflows.migrate import MigrateOptions, Status, migrate_repo

NOTEBOOKS = [c for c in all_cases() if c.before.suffix == ".ipynb"]
FIXED = [c for c in NOTEBOOKS if c.fixed is not None]
EARLIER_CELL = (
    FIXTURES / "JAX001" / "notebook_mesh_built_in_earlier_cell.ipynb"
)  # flagged: cell 8:1:11
UNSAFE = (
    FIXTURES / "JAX002" / "notebook_mesh_constants_across_cells.ipynb"
)  # flagged: cell 4:3:14, unsafe fix
ARGS = ["--jax-version", "0.10.2", "--no-cache", "--color", "never"]


def invoke(cwd: Path, *args: str):
    here = Path.cwd()
    try:
        os.chdir(cwd)
        return CliRunner().invoke(cli, [*ARGS, *args], catch_exceptions=False)
    finally:
        os.chdir(here)


def copy(name: Path, directory: Path, as_name: str | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copyfile(name, directory / (as_name or name.name)))


def source_strings(text: str) -> set[str]:
    """Every JSON string that holds (part of) a cell's source."""
    sources = [cell["source"] for cell in json.loads(text)["cells"]]
    return {
        string
        for source in sources
        for string in ([source] if isinstance(source, str) else source)
    }


@pytest.mark.parametrize("case", FIXED, ids=lambda c: c.id)
def test_fixed_notebook_differs_only_inside_touched_sources(case):
    before, after = (
        case.before.read_text(encoding="utf-8"),
        case.fixed.read_text(encoding="utf-8"),
    )
    old, new = json.loads(before), json.loads(after)
    touched = [
        i
        for i, (a, b) in enumerate(zip(old["cells"], new["cells"]))
        if a["source"] != b["source"]
    ]
    assert touched and all(old["cells"][i]["cell_type"] == "code" for i in touched)
    for i in touched:
        old["cells"][i]["source"] = new["cells"][i]["source"]
    assert old == new, "something besides a code cell's source changed"
    # Byte level: every changed JSON line is a string of a source (no reformatting around it).
    old_strings, new_strings = source_strings(before), source_strings(after)
    matcher = difflib.SequenceMatcher(
        None, before.splitlines(), after.splitlines(), autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for line, strings in [
            *((x, old_strings) for x in before.splitlines()[i1:i2]),
            *((x, new_strings) for x in after.splitlines()[j1:j2]),
        ]:
            token = line.strip().removesuffix(",").removeprefix('"source": ')
            assert json.loads(token) in strings, line
    assert before.endswith("\n") == after.endswith("\n")


def test_fix_writes_notebooks_in_place_and_leaves_the_rest_byte_identical(tmp_path):
    for case in NOTEBOOKS:
        copy(case.before, tmp_path / case.code)
    result = invoke(tmp_path, "--unsafe-fixes", ".")
    assert result.exit_code == 0, result.stderr
    for case in NOTEBOOKS:
        written = (tmp_path / case.code / case.before.name).read_bytes()
        assert written == (case.fixed or case.before).read_bytes(), case.id
    assert not list(tmp_path.rglob("*.jaxfix-tmp"))


def test_text_output_names_the_cell(tmp_path):
    path = copy(EARLIER_CELL, tmp_path)
    result = invoke(tmp_path, "--check", path.name)
    assert result.exit_code == 1
    assert f"{path.name}:cell 8:1:11: JAX001 " in result.stdout
    related = invoke(tmp_path, "--check", copy(UNSAFE, tmp_path).name)
    assert (
        "notebook_mesh_constants_across_cells.ipynb:cell 4:3:14: JAX002 `use_abstract_mesh(STAGE2)` (cell 4, line 3,"
        in related.stdout
    )


def test_diff_is_per_cell_and_readable(tmp_path):
    path = copy(EARLIER_CELL, tmp_path)
    result = invoke(tmp_path, "--diff", path.name)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:3] == [
        f"--- a/{path.name}:cell 8",
        f"+++ b/{path.name}:cell 8",
        "@@ -1,2 +1,4 @@",  # the fixed call is laid out over three lines (88 columns)
    ]
    assert "-lowered = step.lower(x)" in result.stdout.splitlines()
    assert '"source"' not in result.stdout and "\\n" not in result.stdout
    assert path.read_bytes() == EARLIER_CELL.read_bytes()


def test_json_format_gives_cell_relative_positions(tmp_path):
    path = copy(UNSAFE, tmp_path)
    result = invoke(
        tmp_path, "--check", "--unsafe-fixes", "--format", "json", path.name
    )
    document = json.loads(result.stdout)
    schema = json.loads(
        (ROOT / "jaxfix" / "schemas" / "jaxfix-report.schema.json").read_text()
    )
    jsonschema.validate(document, schema)
    [diagnostic] = document["files"][0]["diagnostics"]
    assert diagnostic["start"] == {"line": 3, "column": 14, "cell": 4}
    assert [r["start"] for r in diagnostic["related"]] == [
        {"line": 2, "column": 10, "cell": 4}
    ]
    assert document["files"][0]["diff"].startswith(f"--- a/{path.name}:cell 2\n")


@pytest.mark.parametrize("output_format", ["github", "gitlab", "sarif", "rdjson"])
def test_line_formats_point_at_the_source_line_in_the_notebook_file(
    tmp_path, output_format
):
    path = copy(EARLIER_CELL, tmp_path)
    result = invoke(tmp_path, "--check", "--format", output_format, path.name)
    text = result.stdout
    raw_lines = EARLIER_CELL.read_text(encoding="utf-8").splitlines()
    line = next(
        n
        for n, text in enumerate(raw_lines, start=1)
        if '"lowered = step.lower(x)\\n"' in text
    )
    column = raw_lines[line - 1].index("step.lower") + 1
    assert "cell 8:1:11: " in text
    if output_format == "github":
        assert f"line={line},col={column}," in text
    elif output_format == "gitlab":
        assert json.loads(text)[0]["location"]["lines"] == {"begin": line, "end": line}
    elif output_format == "sarif":
        region = json.loads(text)["runs"][0]["results"][0]["locations"][0][
            "physicalLocation"
        ]["region"]
        assert (region["startLine"], region["startColumn"]) == (line, column)
    else:
        start = json.loads(text)["diagnostics"][0]["location"]["range"]["start"]
        assert start == {"line": line, "column": column}


def test_suggestions_applied_to_the_notebook_file_give_the_fixed_notebook(tmp_path):
    path = copy(UNSAFE, tmp_path)
    result = invoke(
        tmp_path,
        "--check",
        "--unsafe-fixes",
        "--format",
        "github-suggestions",
        path.name,
    )
    lines = UNSAFE.read_text(encoding="utf-8").split("\n")
    for item in sorted(json.loads(result.stdout), key=lambda i: -i["line"]):
        body = item["body"].split("```suggestion\n", 1)[1].rsplit("\n```", 1)[0]
        first = item.get("start_line", item["line"])
        lines[first - 1 : item["line"]] = body.split("\n")
    assert "\n".join(lines) == UNSAFE.with_name(f"{UNSAFE.stem}.fixed.ipynb").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize(
    "content,message",
    [
        ('{"cells": [', "not a notebook: invalid JSON: Expecting value"),
        (
            '{"name": "package.json, not a notebook"}',
            "not a Jupyter notebook: the JSON document has no 'nbformat' key",
        ),
        (
            '{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}',
            "nbformat 3 notebook: jaxfix reads nbformat 4",
        ),
        (
            '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "id": "a", "metadata": {},'
            ' "source": "jax.jit(f).lower(NamedSharding(AbstractMesh((8,), (\'b\',)), P()))", "outputs": 5, "execution_count": null}]}',
            "notebook does not validate against the nbformat schema: 5 is not of type 'array'",
        ),
    ],
)
def test_unreadable_notebooks_get_one_line_each_and_the_rest_is_processed(
    tmp_path, content, message
):
    (tmp_path / "bad.ipynb").write_text(content)
    copy(EARLIER_CELL, tmp_path)
    result = invoke(tmp_path, "--check", ".")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert (
        len(errors) == 1 and errors[0].startswith("bad.ipynb") and message in errors[0]
    ), errors
    assert ":cell 8:1:11: JAX001" in result.stdout


def test_a_syntax_error_is_placed_in_its_cell(tmp_path):
    document = json.loads(EARLIER_CELL.read_text())
    document["cells"][4]["source"] = ["x = (1,\n", "y = 2\n"]
    (tmp_path / "broken.ipynb").write_text(json.dumps(document))
    result = run_engine(
        (tmp_path / "broken.ipynb").read_bytes(),
        ["--jax-version", "0.10.2"],
        path=str(tmp_path / "broken.ipynb"),
    )
    assert result.error.startswith("syntax error") and result.error_location.cell == 5


def test_a_fixed_notebook_that_does_not_validate_is_not_written(tmp_path, monkeypatch):
    real = nb.validate

    def refuse_fixed(data, what="notebook"):
        if what != "notebook":
            raise nb.NotebookError(
                f"{what} does not validate against the nbformat schema: refused in this test"
            )
        real(data, what)

    monkeypatch.setattr(nb, "validate", refuse_fixed)
    path = copy(EARLIER_CELL, tmp_path)
    result = run_engine(path.read_bytes(), ["--jax-version", "0.10.2"], path=str(path))
    assert (
        result.fixed is None and "the fixed notebook does not validate" in result.error
    )


def test_suppression_comment_in_a_cell(tmp_path):
    document = json.loads(EARLIER_CELL.read_text())
    document["cells"][7]["source"][0] = "lowered = step.lower(x)  # noqa: JAX001\n"
    result = run_engine(
        json.dumps(document).encode(),
        ["--jax-version", "0.10.2"],
        path="suppressed.ipynb",
    )
    assert result.error is None and result.diagnostics == () and result.fixed is None


CELLS = [
    "%matplotlib inline\nimport jax\n",
    "x = !ls -la \\\n   /tmp\nfiles = %sx ls\nprint(x)",  # escapes with an assignment, a continued line, no final newline
    "y = (1\n% 2)\ns = '''\n%not a magic\n'''\n",  # modulo inside brackets and a line inside a string: Python
    "for i in range(2):\n    !echo $i\n    %time f(i)\n",  # a block made only of escapes still parses
    "jax.numpy.ones?\n??jax\nawait asyncio.sleep(0)\r\n",  # help, top-level await, a CRLF line
    "%%bash\necho 'not python'\n",
    "",
    # automagics (IPython runs a line magic without its `%`), beside Python spelled alike
    "pip install -q jax\ntimeit -n 5 -r 5 f(x).block_until_ready()\n"
    "time = 5\nrun(x)\ncd / x\nhistory (\n  1)\n",
]


def test_ipython_syntax_is_masked_and_restored_byte_for_byte():
    document = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {
                "cell_type": "code",
                "id": str(i),
                "metadata": {},
                "outputs": [],
                "execution_count": None,
                "source": text,
            }
            for i, text in enumerate(CELLS)
        ],
    }
    notebook = nb.parse(json.dumps(document).encode())
    module = nb.to_module(notebook)
    code = module.code.decode()
    import libcst

    libcst.parse_module(code)  # the masked module is Python
    assert "% 2)" in code and "%not a magic" in code
    assert (
        "%matplotlib" not in code
        and "!echo" not in code
        and "echo 'not python'" not in code
        and "pip install" not in code
        and "timeit -n" not in code
    )
    assert all(
        line in code for line in ("time = 5\n", "run(x)\n", "cd / x\n", "history (\n")
    )
    assert nb.cells_of(module, notebook, code) == {
        i + 1: text for i, text in enumerate(CELLS) if not text.startswith("%%")
    }


def test_diff_base_maps_changed_notebook_lines_to_cells(tmp_path):
    document = json.loads(EARLIER_CELL.read_text())
    document["cells"][7]["source"].insert(
        1, "again = step.lower(x)\n"
    )  # a second site in cell 8
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(document, indent=1) + "\n")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base"],
    ):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    document["cells"][7]["source"][1] = "again = step.lower(x)  # edited\n"
    path.write_text(json.dumps(document, indent=1) + "\n")
    result = invoke(tmp_path, "--check", "--diff-base", "HEAD", "--format", "json", ".")
    starts = [
        d["start"] for f in json.loads(result.stdout)["files"] for d in f["diagnostics"]
    ]
    assert starts == [{"line": 2, "column": 9, "cell": 8}]
    untracked = copy(EARLIER_CELL, tmp_path, "new.ipynb")
    result = invoke(
        tmp_path, "--check", "--diff-base", "HEAD", "--format", "json", untracked.name
    )
    assert [
        d["start"]["cell"]
        for f in json.loads(result.stdout)["files"]
        for d in f["diagnostics"]
    ] == [8]


def test_cache_keeps_cell_positions(tmp_path):
    path = copy(EARLIER_CELL, tmp_path)
    first = run_engine(path.read_bytes(), ["--jax-version", "0.10.2"], path=str(path))
    options = options_from_args(["--jax-version", "0.10.2"])
    Cache(tmp_path / "cache", options).put(first)
    assert (
        first.fixed is not None
        and Cache(tmp_path / "cache", options).get(path, path.read_bytes()) is None
    )  # a fix is never cached
    reported = replace(
        first,
        fixed=None,
        diagnostics=tuple(replace(d, applied=False) for d in first.diagnostics),
    )
    Cache(tmp_path / "cache", options).put(reported)
    assert Cache(tmp_path / "cache", options).get(path, path.read_bytes()) == reported
    assert (
        reported.diagnostics[0].start.cell == 8
        and reported.diagnostics[0].fix_cell is not None
    )


def test_discovery_takes_notebooks_by_default_and_follows_include(tmp_path):
    copy(EARLIER_CELL, tmp_path / "pkg")
    assert ":cell 8:1:11: JAX001" in invoke(tmp_path, "--check", ".").stdout
    (tmp_path / "pyproject.toml").write_text('[tool.jaxfix]\ninclude = ["*.py"]\n')
    assert (
        "warning: No Python files found" in invoke(tmp_path, "--check", ".").stderr
    )  # the notebook is not taken
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxfix]\ninclude = ["*.py"]\nextend-include = ["*.ipynb"]\n'
    )
    assert ":cell 8:1:11: JAX001" in invoke(tmp_path, "--check", ".").stdout


def test_migrate_commits_fixed_notebooks_and_lists_what_is_left(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    copy(EARLIER_CELL, repo / "notebooks")
    copy(UNSAFE, repo / "notebooks")
    (repo / "pyproject.toml").write_text('[tool.jaxfix]\njax-version = "0.10.2"\n')
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@e")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@e")
    report, patch = migrate_repo(repo, MigrateOptions())
    assert report.status is Status.CHANGED, report.reason
    assert report.files_changed == (
        "notebooks/notebook_mesh_built_in_earlier_cell.ipynb",
    )
    committed = subprocess.run(
        ["git", "show", f"jaxfix/migrate:{report.files_changed[0]}"],
        cwd=repo,
        capture_output=True,
        check=True,
    ).stdout
    assert (
        committed
        == EARLIER_CELL.with_name(f"{EARLIER_CELL.stem}.fixed.ipynb").read_bytes()
    )
    assert [entry.split(": JAX002")[0] for entry in report.left] == [
        "notebooks/notebook_mesh_constants_across_cells.ipynb:cell 4:3:14"
    ]
    assert (
        repo / "notebooks" / EARLIER_CELL.name
    ).read_bytes() == EARLIER_CELL.read_bytes()


def test_dry_run_shows_each_finding_above_its_cell_diff(tmp_path):
    path = copy(UNSAFE, tmp_path)
    lines = invoke(
        tmp_path, "--dry-run", "--unsafe-fixes", path.name
    ).stdout.splitlines()
    start = lines.index(f"--- a/{path.name}:cell 2")
    assert lines[start + 1] == f"+++ b/{path.name}:cell 2"
    assert lines[start + 2].startswith(
        f"{path.name}:cell 4:3:14: JAX002 "
    )  # the fix is in cell 2, the finding in cell 4
    assert '-STAGE2 = AbstractMesh((8, 2), ("data", "model"))' in lines
    assert not any('"source"' in line or line.endswith('\\n",') for line in lines)


def test_a_notebook_named_on_the_command_line_gets_its_cells_syntax_checked(tmp_path):
    document = json.loads(EARLIER_CELL.read_text())
    document["cells"] = [
        cell for cell in document["cells"] if "lower" not in "".join(cell["source"])
    ]  # no rule applies
    (tmp_path / "clean.ipynb").write_text(json.dumps(document))
    assert (
        invoke(tmp_path, "--check", "clean.ipynb").exit_code == 0
    )  # the JSON itself is not taken for Python
    number, cell = next(
        (n, c)
        for n, c in enumerate(document["cells"], start=1)
        if c["source"][:1] == ["!nproc\n"]
    )
    cell["source"] = ["!nproc\n", "mesh = (\n"]
    (tmp_path / "broken.ipynb").write_text(json.dumps(document))
    result = invoke(tmp_path, "--check", "broken.ipynb")
    assert (
        result.exit_code == 2
        and f"broken.ipynb:cell {number}:" in result.stderr
        and "syntax error" in result.stderr
    )


def test_stdin_with_a_notebook_filename(tmp_path):
    fixed = EARLIER_CELL.with_name(f"{EARLIER_CELL.stem}.fixed.ipynb").read_bytes()
    here = Path.cwd()
    try:
        os.chdir(tmp_path)
        run = CliRunner().invoke(
            cli,
            [*ARGS, "-", "--stdin-filename", "nb.ipynb"],
            input=EARLIER_CELL.read_bytes(),
        )
        assert run.exit_code == 0 and run.stdout_bytes == fixed
        clean = CliRunner().invoke(
            cli, [*ARGS, "--check", "-", "--stdin-filename", "nb.ipynb"], input=fixed
        )
        assert clean.exit_code == 0, clean.stderr
        broken = {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {
                    "cell_type": "code",
                    "id": "a",
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                    "source": "%who\nx = (\n",
                }
            ],
        }
        error = CliRunner().invoke(
            cli,
            [*ARGS, "--check", "-", "--stdin-filename", "nb.ipynb"],
            input=json.dumps(broken),
        )
        assert (
            error.exit_code == 2
            and "nb.ipynb:cell 1:" in error.stderr
            and "syntax error" in error.stderr
        )
        diff = CliRunner().invoke(
            cli,
            [*ARGS, "--diff", "-", "--stdin-filename", "nb.ipynb"],
            input=EARLIER_CELL.read_bytes(),
        )
        assert diff.stdout.startswith("--- a/nb.ipynb:cell 8\n")
    finally:
        os.chdir(here)


def test_an_import_a_fix_needs_joins_the_imports_in_their_cell():
    script = (FIXTURES / "JAX001" / "module_without_import_jax.py").read_text()
    code = "".join(
        line for line in script.splitlines(keepends=True) if not line.startswith("# ")
    )
    document = {
        "nbformat": 4,
        "nbformat_minor": 4,
        "metadata": {},
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": ["%matplotlib inline\n", "!nproc\n"],
            },
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": nb.split_lines(code),
            },
        ],
    }
    source = json.dumps(document, indent=1).encode()
    result = run_engine(source, ["--jax-version", "0.10.2"], path="imports.ipynb")
    cells = [cell["source"] for cell in json.loads(result.fixed)["cells"]]
    assert cells[0] == ["%matplotlib inline\n", "!nproc\n"]
    assert cells[1][:4] == [
        "import jax\n",
        *nb.split_lines(code)[:3],
    ]  # where isort puts it


def _as_minor_4(text: str) -> str:
    """The notebook as JupyterLab and VS Code often write it (and docs/ffi.ipynb in jax-ml/jax
    is): `nbformat_minor` 4, every cell with an `id` (ids came with 4.5)."""
    assert text.count('"nbformat_minor": 5') == 1 and '"id": "cell-1"' in text
    return text.replace('"nbformat_minor": 5', '"nbformat_minor": 4')


def test_a_4_4_notebook_with_cell_ids_is_read_as_jupyter_reads_it(tmp_path):
    clean = FIXTURES / "JAX001" / "notebook_already_passes_lowering_platforms.ipynb"
    (tmp_path / "clean.ipynb").write_text(
        _as_minor_4(clean.read_text(encoding="utf-8")), encoding="utf-8"
    )
    (tmp_path / "plain.py").write_text("x = 1\n")
    result = invoke(tmp_path, "--check", ".")
    assert (result.exit_code, "error:" in result.stderr) == (0, False), result.stderr
    # a real schema error in such a notebook is still one, named as before
    document = json.loads(_as_minor_4(clean.read_text(encoding="utf-8")))
    document["cells"][1]["id"] = 5
    with pytest.raises(nb.NotebookError, match="5 is not of type 'string'"):
        nb.validate(document)
    document["cells"][1]["id"], document["cells"][1]["colour"] = "ok", "red"
    with pytest.raises(nb.NotebookError, match="'colour' was unexpected"):
        nb.validate(document)


def test_fixing_a_4_4_notebook_with_cell_ids_keeps_its_ids_and_minor(tmp_path):
    path = tmp_path / EARLIER_CELL.name
    path.write_text(
        _as_minor_4(EARLIER_CELL.read_text(encoding="utf-8")), encoding="utf-8"
    )
    some_without_id = json.loads(path.read_text(encoding="utf-8"))
    assert invoke(tmp_path, path.name).exit_code == 0
    expected = _as_minor_4(
        EARLIER_CELL.with_name(f"{EARLIER_CELL.stem}.fixed.ipynb").read_text(
            encoding="utf-8"
        )
    )
    assert path.read_text(encoding="utf-8") == expected
    # cells without an id (4.4 allows them) stay without one: nbformat's repair is never written
    del some_without_id["cells"][0]["id"], some_without_id["cells"][7]["id"]
    path.write_text(json.dumps(some_without_id, indent=1), encoding="utf-8")
    assert invoke(tmp_path, path.name).exit_code == 0
    ids = [
        cell.get("id") for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
    ]
    assert ids == [None, *(f"cell-{n}" for n in range(1, 7)), None]


def test_a_notebook_in_error_is_cached_like_a_result(tmp_path, monkeypatch):
    document = json.loads(EARLIER_CELL.read_text(encoding="utf-8"))
    document["cells"][1]["outputs"] = 5
    (tmp_path / "bad.ipynb").write_text(json.dumps(document), encoding="utf-8")
    validated: list[object] = []
    real = nb.validate
    monkeypatch.setattr(
        nb,
        "validate",
        lambda data, what="notebook": (validated.append(what), real(data, what)),
    )
    runs = [
        CliRunner().invoke(
            cli,
            [
                "--check",
                "-j",
                "1",
                "--color",
                "never",
                "--jax-version",
                "0.10.2",
                "--cache-dir",
                str(tmp_path / "cache"),
                str(tmp_path / "bad.ipynb"),
            ],
        )
        for _ in range(2)
    ]
    assert [r.exit_code for r in runs] == [2, 2] and runs[0].output == runs[1].output
    assert "5 is not of type 'array'" in runs[1].output
    assert validated == ["notebook"], "the warm run read the notebook in error again"
    # an internal error is not cached: it is retried
    from jaxfix.ground.diagnostics import FileResult

    options = options_from_args(["--jax-version", "0.10.2"])
    crash = FileResult(
        tmp_path / "x.py",
        b"x = 1\n",
        error="internal error in a rule, file left untouched: boom",
    )
    Cache(tmp_path / "cache2", options).put(crash)
    assert Cache(tmp_path / "cache2", options).get(crash.path, crash.source) is None


@pytest.mark.parametrize(
    "comment",
    [
        "# jaxfix: ipython 5\n",  # the number of the notebook's IPython lines: was an IndexError
        "# jaxfix: ipython 2\n",
        "    # jaxfix: ipython 0\n",
        "pass  # jaxfix: ipython 1\n",
        "# jaxfix: cell 8\n",
        "# jaxfix: cell 3\n",
    ],
)
def test_user_text_cannot_pass_for_jaxfix_markers(comment):
    """jaxfix's cell markers and IPython placeholders carry a per-run tag: a cell's own comment that
    looks like one is a comment, and the notebook gets the same fix as without it."""
    document = json.loads(EARLIER_CELL.read_text())
    fixed = json.loads(
        run_engine(
            json.dumps(document).encode(), ["--jax-version", "0.10.2"], path="nb.ipynb"
        ).fixed
    )
    document["cells"][7]["source"].insert(0, comment)
    result = run_engine(
        json.dumps(document).encode(), ["--jax-version", "0.10.2"], path="nb.ipynb"
    )
    assert result.error is None
    assert [d.start for d in result.diagnostics] == [Location(2, 11, 8)]
    cells = json.loads(result.fixed)["cells"]
    assert cells[7]["source"] == [comment, *fixed["cells"][7]["source"]]
    assert cells[:7] == fixed["cells"][:7]


def test_a_cell_with_two_source_keys_is_one_line_naming_it():
    """Was "internal error: the spliced notebook does not hold the fixed cells"."""
    document = json.loads(EARLIER_CELL.read_text())
    text, cell = json.dumps(document), json.dumps(document["cells"][7])
    doubled = text.replace(
        cell, cell.replace('"source": ', '"source": ["x = 1\\n"], "source": ', 1)
    )
    assert doubled != text
    result = run_engine(doubled.encode(), ["--jax-version", "0.10.2"], path="nb.ipynb")
    assert (
        result.fixed is None
        and result.error
        == "not a valid nbformat 4 notebook: cell 8 has 2 'source' keys"
    )


def test_a_notebook_no_rule_can_apply_to_is_not_validated(tmp_path):
    """A notebook whose JSON has no rule's words is settled by the prefilter, unread: a schema
    quirk (a markdown cell with an execution count, seen in flax's examples) is no error."""
    document = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n"]},
            {
                "cell_type": "markdown",
                "execution_count": 3,
                "metadata": {},
                "source": ["text\n"],
            },
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {},
                "outputs": [],
                "source": ["x = 1\n"],
            },
        ],
    }
    (tmp_path / "quirk.ipynb").write_text(json.dumps(document))
    result = invoke(tmp_path, "--check", "quirk.ipynb")
    assert result.exit_code == 0, result.output
