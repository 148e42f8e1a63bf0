"""The README and docs/ say what is true: checked against the code, the schema and the shell."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from jaxfix.cli.main import cli
from jaxfix.codemods import BUILTIN, RULES

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_readme_is_a_front_page_with_exactly_two_setup_commands():
    assert len(README.splitlines()) < 150
    setup = _blocks(README, "bash")
    assert len(setup) == 2
    assert "jaxfix --dry-run fixtures/" in setup[0] and "pytest" in setup[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = setup[1].strip().split("&& ")[-1].replace(".venv/bin/", "")
    assert test_command in ci, (
        f".ci/run must run the README's test command ({test_command})"
    )


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_readme_rule_table_is_generated_from_the_rules():
    sys.path.insert(0, str(ROOT / "scripts"))
    from generate_docs import readme_with_table

    assert readme_with_table(README) == README, "run `python scripts/generate_docs.py`"
    for code in RULES:
        assert f"[{code}](docs/rules/{code}.md)" in README


def test_engine_page_is_generated_from_the_analysis_and_every_rule_links_it():
    sys.path.insert(0, str(ROOT / "scripts"))
    from generate_docs import engine_page

    assert (DOCS / "engine.md").read_text(encoding="utf-8") == engine_page(), (
        "docs/engine.md drifted from jaxfix/analysis: run `python scripts/generate_docs.py`"
    )
    for code in BUILTIN:
        assert "[docs/engine.md](../engine.md)" in RULES[code].doc(), code


def test_engine_page_describes_the_engine_over_ast_only():
    """Every section and import of the page's generator is jaxfix/analysis/ast_engine/ (or the
    one API table, analysis/names.py): the page never documents the LibCST-era analysis."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from generate_docs import engine_sections

    script = (ROOT / "scripts" / "generate_docs.py").read_text(encoding="utf-8")
    named = {name for _, name in engine_sections()}
    named |= {
        node.module
        for node in ast.walk(ast.parse(script))
        if isinstance(node, ast.ImportFrom) and node.module
    }
    named |= {
        alias.name
        for node in ast.walk(ast.parse(script))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    named |= set(re.findall(r'import_module\("([\w.]+)"\)', script))
    analysis = {name for name in named if name.startswith("jaxfix.analysis")}
    assert analysis and all(
        name.startswith("jaxfix.analysis.ast_engine") or name == "jaxfix.analysis.names"
        for name in analysis
    ), sorted(analysis)


def test_readme_example_is_what_jaxfix_prints():
    sys.path.insert(0, str(ROOT / "scripts"))
    from generate_docs import EXAMPLE, example_output

    shown = EXAMPLE.search(README)
    assert shown, "the README lost its example"
    assert shown[3] == example_output(shown[2].split()), (
        "run `python scripts/generate_docs.py`"
    )


def test_ci_recipes_work_as_written():
    ci = (DOCS / "ci.md").read_text(encoding="utf-8")
    assert "<owner>" not in ci and not re.search(r"<[a-z-]+>", ci)
    for block in _blocks(ci, "yaml"):
        assert yaml.safe_load(textwrap.dedent(block))
    for block in _blocks(ci, "bash"):
        subprocess.run(["bash", "-n"], input=block, text=True, check=True)
    from jaxfix.cli.formats import FORMATS

    used = re.findall(r"jaxfix --check --format ([\w-]+)", ci)
    assert used and set(used) <= set(FORMATS)


def test_json_document_example_matches_the_schema():
    text = (DOCS / "output-formats.md").read_text(encoding="utf-8")
    schema = json.loads(
        (ROOT / "jaxfix" / "schemas" / "jaxfix-report.schema.json").read_text()
    )
    jsonschema.validate(json.loads(_blocks(text, "json")[0]), schema)
    statuses = schema["$defs"]["file"]["properties"]["status"]["enum"]
    row = next(line for line in text.splitlines() if line.startswith("| `status` |"))
    assert re.findall(r"`(\w+)`", row)[1:] == statuses


@pytest.mark.parametrize(
    "page",
    [
        "usage",
        "configuration",
        "output-formats",
        "ci",
        "migrate",
        "performance",
        "guarantees",
        "editors",
        "engine",
    ],
)
def test_docs_pages_exist_and_are_linked(page):
    assert (DOCS / f"{page}.md").exists()
    assert f"docs/{page}.md" in README


def test_editor_configs_parse_and_start_the_server_subcommand():
    """docs/editors.md: the JSON and TOML snippets are valid and every one runs `jaxfix server`,
    a subcommand that exists; the Lua snippets name the same command."""
    tomllib = pytest.importorskip("tomllib")

    text = (DOCS / "editors.md").read_text(encoding="utf-8")
    vscode = json.loads(_blocks(text, "json")[0])
    assert [
        vscode["glspc.server.command"],
        *vscode["glspc.server.commandArguments"],
    ] == ["jaxfix", "server"]
    assert "source.fixAll.jaxfix" in vscode["editor.codeActionsOnSave"]
    helix = tomllib.loads(_blocks(text, "toml")[0])
    assert [
        helix["language-server"]["jaxfix"]["command"],
        *helix["language-server"]["jaxfix"]["args"],
    ] == ["jaxfix", "server"]
    assert "jaxfix" in helix["language"][0]["language-servers"]
    lua = _blocks(text, "lua")
    assert sum('{ "jaxfix", "server" }' in block for block in lua) == 2
    assert any("source.fixAll.jaxfix" in block for block in lua)
    assert '("jaxfix" "server")' in _blocks(text, "elisp")[0]
    result = CliRunner().invoke(cli, ["server", "--help"])
    assert result.exit_code == 0 and "language server" in result.output


def test_the_actions_python_reads_python_3_12_code_and_ci_md_says_which():
    """JAX's own repository has PEP 695 generics: the action's default Python reads them."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    default = action["inputs"]["python-version"]["default"]
    assert tuple(int(part) for part in default.split(".")) >= (3, 12)
    ci = (DOCS / "ci.md").read_text(encoding="utf-8")
    assert f"| `python-version` | `{default}` |" in ci
