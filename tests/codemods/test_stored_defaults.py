"""`stored_default`: what `self.attr` holds when a keyword default gave it, asked directly
of sources where it must be followed and where it must not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.codemods.stored_defaults import StoredDefault, stored_default

LAYER = """\
class Layer:
    def __init__(self, mesh, out=None):
        self.mesh = mesh
        self.out = out

    def run(self):
        return (lambda: self.out)()


def make(mesh, out=DEFAULT):
    {body}
    return Layer(mesh, out)
"""


def _asked(source: str) -> StoredDefault | str | None:
    engine = Engine(jax_version=(0, 10, 2))
    module = engine.module(Path("layer.py").absolute(), source.encode())
    read = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Attribute)
        and n.attr == "out"
        and isinstance(n.ctx, ast.Load)
        and isinstance(n.value, ast.Name)
        and n.value.id == "self"  # `run`'s
    )
    return stored_default(Analysis(engine, module), read)


def test_the_factory_s_default_is_what_the_one_construction_passes_on():
    found = _asked(LAYER.format(body="pass"))
    assert isinstance(found, StoredDefault)
    assert (ast.unparse(found.value), found.parameter, found.function) == (
        "DEFAULT",
        "out",
        "make",
    )


@pytest.mark.parametrize(
    "source",
    [
        LAYER.format(body="out = out or DEFAULT"),  # the factory binds it again
        LAYER.format(body="warm(out)"),  # the factory reads the default itself too
        LAYER.format(body="pass").replace(  # `__init__` reads it itself too
            "        self.out = out\n", "        self.out = out\n        print(out)\n"
        ),
        LAYER.format(body="pass") + "\nOTHER = Layer(None, None)\n",  # built twice
        LAYER.format(body="pass") + "\nKINDS = [Layer]\n",  # named as a value
        LAYER.format(body="pass").replace("self.out = out", "self.out = out[0]"),
        LAYER.format(body="pass").replace(
            "        self.out = out\n", "        self.out = out\n        self.out = 1\n"
        ),
    ],
)
def test_a_value_the_default_may_not_be_is_not_followed(source):
    assert _asked(source) is None


def test_a_second_read_is_named_with_its_line():
    found = _asked(
        LAYER.format(body="pass") + "\ndef peek(layer):\n    return layer.out\n"
    )
    assert found == (
        "`self.out` is stored at line 4 and also read at line 15: what it is given is "
        "not changed for one read"
    )
