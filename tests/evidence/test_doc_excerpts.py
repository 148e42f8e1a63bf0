"""The log excerpts the README and docs/from-log.md show, saved verbatim as a log, are read by
`--from-log` (issue 42): without pytest's section header, plain tracebacks with or without
their `Traceback (most recent call last):` line, unittest's output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
# The project the docs' excerpts come from: line 10 is the inner mesh that raised.
STAGES = """\
import jax
from jax.sharding import AbstractMesh, use_abstract_mesh

from trainer.config import load_config


def eval_shapes(x):
    config = load_config()
    with use_abstract_mesh(AbstractMesh((config["data"], config["model"]), ("data", "model"))):
        with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
            return jax.eval_shape(lambda a: a * 2, x)
"""
FIXED = STAGES.replace("AbstractMesh((16, 4)", "AbstractMesh((8, 4)")
MESSAGE = "E   ValueError: use_abstract_mesh cannot change the size of the mesh."


def _excerpt(document: str) -> str:
    """The first code block of `document` that holds the JAX error's `E` line, verbatim."""
    blocks = re.split(r"^```.*\n", (ROOT / document).read_text(), flags=re.M)
    return next(block for block in blocks[1::2] if MESSAGE in block)


def _fix(tmp_path: Path, log: str) -> tuple[int, str]:
    (tmp_path / "src" / "trainer").mkdir(parents=True, exist_ok=True)
    site = tmp_path / "src" / "trainer" / "stages.py"
    site.write_text(STAGES)
    (tmp_path / "ci.log").write_text(log)
    result = CliRunner().invoke(
        cli,
        [
            "--no-cache",
            "--from-log",
            str(tmp_path / "ci.log"),
            "--unsafe-fixes",
            str(tmp_path),
        ],
    )
    return result.exit_code, site.read_text()


@pytest.mark.parametrize("document", ["README.md", "docs/from-log.md"])
def test_the_docs_excerpt_fixes_the_site(tmp_path: Path, document: str) -> None:
    code, fixed = _fix(tmp_path, _excerpt(document))
    assert (code, fixed) == (0, FIXED)


def _plain(header: bool) -> str:
    """The same error as CPython prints it, with or without the traceback's first line."""
    message = _excerpt("README.md").splitlines()[-1].removeprefix("E   ")
    return (
        ("Traceback (most recent call last):\n" if header else "")
        + '  File "src/trainer/stages.py", line 10, in eval_shapes\n'
        + '    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):\n'
        + '  File "/venv/lib/python3.12/site-packages/jax/_src/mesh.py", line 655, in __enter__\n'
        + "    raise ValueError(\n"
        + message
        + "\n"
    )


@pytest.mark.parametrize("header", [True, False])
def test_a_plain_traceback_with_or_without_its_first_line(
    tmp_path: Path, header: bool
) -> None:
    assert _fix(tmp_path, _plain(header)) == (0, FIXED)


def test_unittest_output(tmp_path: Path) -> None:
    log = (
        "E\n"
        + "=" * 70
        + "\nERROR: test_eval_shapes (tests.test_stages.StagesTest)\n"
        + "-" * 70
        + "\n"
        + _plain(True)
        + "\n"
        + "-" * 70
        + "\nRan 1 test in 0.3s\n\nFAILED (errors=1)\n"
    )
    assert _fix(tmp_path, log) == (0, FIXED)


def test_an_excerpt_of_another_error_changes_nothing(tmp_path: Path) -> None:
    """The must-not-change sibling: the same frames ending in an error no rule knows."""
    log = (
        _excerpt("README.md").rsplit("E   ", 1)[0] + "E   ValueError: something else\n"
    )
    code, fixed = _fix(tmp_path, log)
    assert fixed == STAGES
