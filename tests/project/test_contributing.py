"""The example rule in CONTRIBUTING.md is a real rule file of the suite, shown as it is, and works
with nothing but the core's public API."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import run_engine
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from rules.tst904_spec_axis_not_in_mesh import SpecAxisNotInMesh

ROOT = Path(__file__).resolve().parents[2]
HEADER = """\
import contextlib
import unittest
import jax
from jax.sharding import PartitionSpec as P
mesh = jax.make_mesh((8,), ("x",))
"""


def test_the_guide_shows_the_example_rule_file():
    sys.path.insert(0, str(ROOT / "scripts"))
    from generate_docs import contributing_with_example

    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert contributing_with_example(guide) == guide, (
        "run `python scripts/generate_docs.py`"
    )


@pytest.fixture
def example_rule(monkeypatch: pytest.MonkeyPatch) -> type[Rule]:
    monkeypatch.setitem(RULES, SpecAxisNotInMesh.code, SpecAxisNotInMesh)
    return SpecAxisNotInMesh


def reported(source: str) -> list[int]:
    result = run_engine(HEADER + source, ["--select", "TST904"])
    assert result.error is None, result.error
    return [d.start.line for d in result.diagnostics]


@pytest.mark.parametrize(
    "source, lines",
    [
        (
            'with jax.set_mesh(mesh):\n    jax.device_put(1, P("y"))\n    jax.device_put(1, P("x"))\n',
            [7],
        ),
        (
            'stack = contextlib.ExitStack()\nstack.enter_context(jax.set_mesh(mesh))\nAXIS = "y"\njax.device_put(1, P(AXIS))\n',
            [9],
        ),
        (
            "class T(unittest.TestCase):\n    def setUp(self):\n        self.enterContext(jax.set_mesh(mesh))\n"
            '    def test_it(self):\n        jax.device_put(1, device=P("y"))\n',
            [10],
        ),
        (
            'def put():\n    return jax.device_put(1, P("y"))\nwith jax.set_mesh(mesh):\n    put()\n',
            [7],
        ),
        (
            'with jax.set_mesh(mesh):\n    with imported_helper():\n        jax.device_put(1, P("y"))\n',
            [],
        ),
        ('jax.device_put(1, P("y"))\n', []),
    ],
    ids=[
        "with",
        "exit-stack-and-a-constant",
        "setUp",
        "caller",
        "unknown-helper-between",
        "no-context",
    ],
)
def test_the_example_rule(example_rule, source, lines):
    assert reported(source) == lines


def test_the_registry_reads_the_example_rule_without_importing_it():
    """Its `code`, `tokens` and `raises` are plain literals, one per line, as the registry's
    static reader needs (`code, name, tokens = ...` defeated it)."""
    from jaxfix.check import registry

    path = ROOT / "tests" / "rules" / "tst904_spec_axis_not_in_mesh.py"
    assert (
        registry._read_statically(path)
        == registry._from_rules({SpecAxisNotInMesh.code: SpecAxisNotInMesh})[0]
    )
