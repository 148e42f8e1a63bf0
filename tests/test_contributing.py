"""The example rule in CONTRIBUTING.md works as printed, with nothing but the core's public API."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from helpers import run_engine
from jaxfix.analysis.contexts import innermost
from jaxfix.analysis.names import Api
from jaxfix.analysis.values import MeshValue
from jaxfix.codemods import RULES
from jaxfix.codemods.base import Rule
from jaxfix.diagnostics import Safety

GUIDE = Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"
HEADER = """\
import contextlib
import unittest
import jax
from jax.sharding import PartitionSpec as P
mesh = jax.make_mesh((8,), ("x",))
"""


@pytest.fixture
def example_rule(monkeypatch: pytest.MonkeyPatch) -> type[Rule]:
    block = re.search(r"<!-- example-rule -->\n```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert block, "CONTRIBUTING.md lost its example rule"
    namespace = {"cst": cst, "Rule": Rule, "Safety": Safety, "Api": Api, "innermost": innermost, "MeshValue": MeshValue}
    exec(block.group(1), namespace)  # noqa: S102 - the documented example, run as printed
    rule = namespace["SpecAxisNotInMesh"]
    monkeypatch.setitem(RULES, rule.code, rule)
    return rule


def reported(source: str) -> list[int]:
    result = run_engine(HEADER + source, ["--select", "JAX904"])
    assert result.error is None, result.error
    return [d.start.line for d in result.diagnostics]


@pytest.mark.parametrize(
    "source, lines",
    [
        ('with jax.set_mesh(mesh):\n    jax.device_put(1, P("y"))\n    jax.device_put(1, P("x"))\n', [7]),
        ('stack = contextlib.ExitStack()\nstack.enter_context(jax.set_mesh(mesh))\nAXIS = "y"\njax.device_put(1, P(AXIS))\n', [9]),
        (
            "class T(unittest.TestCase):\n    def setUp(self):\n        self.enterContext(jax.set_mesh(mesh))\n"
            '    def test_it(self):\n        jax.device_put(1, device=P("y"))\n',
            [10],
        ),
        ('def put():\n    return jax.device_put(1, P("y"))\nwith jax.set_mesh(mesh):\n    put()\n', [7]),
        ('with jax.set_mesh(mesh):\n    with imported_helper():\n        jax.device_put(1, P("y"))\n', []),
        ('jax.device_put(1, P("y"))\n', []),
    ],
    ids=["with", "exit-stack-and-a-constant", "setUp", "caller", "unknown-helper-between", "no-context"],
)
def test_the_example_rule(example_rule, source, lines):
    assert reported(source) == lines
