"""Fixes keep to the project's line length (ruff's, else black's, else 88), laid out like the code
around them, and never reformat what they did not touch."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import options_from_args
from jaxfix.cli.main import cli
from jaxfix.config import line_length
from jaxfix.engine import process_source
from snippets import CALL, FIXED, VIOLATION

LONG_UNTOUCHED = "unrelated = [" + ", ".join(["1"] * 40) + "]\n"


def fix(source: str, limit: int = 88) -> str:
    result = process_source(Path("example.py"), source.encode(), replace(options_from_args([]), line_length=limit))
    assert result.error is None and result.fixed is not None, result.error
    return result.fixed.decode()


@pytest.mark.parametrize("config,expected", [
    ({"pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, 120),
    ({"pyproject.toml": "[tool.black]\nline-length = 100\n"}, 100),
    ({"ruff.toml": "line-length = 110\n", "pyproject.toml": "[tool.black]\nline-length = 100\n"}, 110),
    ({"pyproject.toml": "[tool.ruff]\nline-length = 99\n[tool.black]\nline-length = 100\n"}, 99),
    ({"pyproject.toml": "[project]\nname = 'x'\n"}, 88),
    ({}, 88),
])
def test_the_line_length_is_the_formatters(tmp_path, config, expected):
    for name, text in config.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "pkg").mkdir()
    assert line_length(tmp_path / "pkg" / "model.py") == expected


def test_a_long_fix_lays_out_the_edited_call_and_nothing_else(tmp_path):
    (tmp_path / "model.py").write_text(VIOLATION + LONG_UNTOUCHED)
    assert CliRunner().invoke(cli, ["--no-cache", str(tmp_path)]).exit_code == 0
    assert (tmp_path / "model.py").read_text() == FIXED + LONG_UNTOUCHED
    roomy = tmp_path / "roomy"
    roomy.mkdir()
    (roomy / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    (roomy / "model.py").write_text(VIOLATION)
    assert CliRunner().invoke(cli, ["--no-cache", str(roomy)]).exit_code == 0
    assert "trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),))\n" in (roomy / "model.py").read_text()


def test_the_layout_follows_the_line_it_is_on():
    nested = VIOLATION.replace(f"lowered = {CALL}", f"results = dict(\n    lowered={CALL},\n)")
    assert fix(nested).endswith(
        "results = dict(\n"
        "    lowered=jax.jit(jnp.sin).trace(x).lower(\n"
        "        lowering_platforms=(jax.export.default_export_platform(),),\n"
        "    ),\n"
        ")\n")
    in_function = VIOLATION.replace(f"lowered = {CALL}", f"def build():\n\treturn {CALL}")
    assert fix(in_function).endswith(
        "\treturn jax.jit(jnp.sin).trace(x).lower(\n\t\tlowering_platforms=(jax.export.default_export_platform(),),\n\t)\n")
    crlf = fix(VIOLATION.replace("\n", "\r\n"))
    assert crlf == FIXED.replace("\n", "\r\n")


def test_the_outermost_call_on_the_line_is_laid_out_first():
    printed = VIOLATION.replace(f"lowered = {CALL}", f"print({CALL}.as_text(), flush=True)")
    assert fix(printed).endswith(
        "print(\n"
        "    jax.jit(jnp.sin).trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),)).as_text(),\n"
        "    flush=True,\n"
        ")\n")


def test_a_fix_that_fits_stays_on_its_line():
    assert fix(VIOLATION, limit=120) == VIOLATION.replace(CALL, "jax.jit(jnp.sin).trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),))")


def test_a_method_chain_still_too_long_is_laid_out_link_by_link():
    chained = VIOLATION.replace(f"lowered = {CALL}", "compiled = jax.jit(lambda a: a * 2).lower(x).compile()")
    result = process_source(Path("example.py"), chained.encode(), options_from_args(["--unsafe-fixes"]))
    assert result.fixed.decode().endswith(
        "compiled = jax.jit(lambda a: a * 2).trace(x).lower(\n"
        "    lowering_platforms=(jax.export.default_export_platform(),),\n"
        ").compile(\n"
        "    device_assignment=tuple(jax.devices()[:8]),\n"
        ")\n")
