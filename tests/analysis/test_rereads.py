"""`Analysis.rereads_same`: whether reading an expression again, after some code ran, gives the
object its read gave (rereads.py): small programs, no JAX imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.project import Module

PLAIN = """
class Config:
    def __init__(self):
        self.mesh = jax.make_mesh((2,), ("x",))
"""


def program(
    classes: str, members: str = "", between: str = "", read: str = "self.mesh"
) -> str:
    return (
        "import functools\nimport jax\n"
        + classes
        + "\nclass Trainer:\n"
        + "".join(f"    {line}\n" for line in members.splitlines())
        + "    def __init__(self):\n"
        + "        self.cfg = Config()\n"
        + "        self.mesh = jax.make_mesh((2,), ('x',))\n"
        + "    def run(self, x):\n"
        + "".join(f"        {line}\n" for line in between.splitlines())
        + f"        return {read}\n"
    )


def asked(tmp_path: Path, source: str, others: dict[str, str] | None = None) -> bool:
    """`rereads_same` of the last `return`'s value, after the statements before it."""
    files = []
    for name, text in {"main": source, **(others or {})}.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        files.append(path)
    engine = Engine(roots=(tmp_path,), files=tuple(files), jax_version=(0, 10, 2))
    module = engine.module(files[0])
    assert isinstance(module, Module)
    returns = [n for n in ast.walk(module.tree) if isinstance(n, ast.Return)]
    body = module.parents[returns[-1]]
    assert isinstance(body, ast.FunctionDef) and returns[-1].value is not None
    between = body.body[: body.body.index(returns[-1])]
    return Analysis(engine, module).rereads_same(returns[-1].value, between)


@pytest.mark.parametrize(
    "members, between, read",
    [
        ("", "", "self.mesh"),
        ("", "", "self.cfg.mesh"),
        ("", "", "x"),
        ("", "jax.set_mesh(self.mesh)", "self.mesh"),
        ("", "y = self.mesh", "self.mesh"),
        ("kind = 'trainer'", "", "self.mesh"),  # a constant of the class
    ],
)
def test_read_again_the_same(tmp_path, members, between, read):
    assert asked(tmp_path, program(PLAIN, members, between, read))


@pytest.mark.parametrize(
    "members, between, read",
    [
        # a getter runs at each read
        (
            "@property\ndef mesh(self):\n    return jax.make_mesh((2,), ('x',))",
            "",
            "self.mesh",
        ),
        (
            "@functools.cached_property\ndef mesh(self):\n    return jax.make_mesh((2,), ('x',))",
            "",
            "self.mesh",
        ),
        ("def __getattr__(self, name):\n    return 1", "", "self.mesh"),
        ("def __getattribute__(self, name):\n    return 1", "", "self.mesh"),
        ("mesh = functools.cached_property(lambda self: 1)", "", "self.mesh"),
        # what runs between may store it
        ("", "self.setup()", "self.mesh"),
        ("", "self.mesh = None", "self.mesh"),
        ("", "self.cfg.mesh = None", "self.cfg.mesh"),
        ("", "x = 1", "x"),
        ("", "print(x)", "x"),
        # not an attribute chain on a name
        ("", "", "self.get_mesh()"),
        ("", "", "self.meshes['a']"),
    ],
)
def test_not_proven_the_same(tmp_path, members, between, read):
    assert not asked(tmp_path, program(PLAIN, members, between, read))


def test_a_class_answering_attributes_itself_is_not_proven(tmp_path):
    config = PLAIN + "    def __getattr__(self, name):\n        return 1\n"
    assert not asked(tmp_path, program(config, read="self.cfg.mesh"))


def test_a_subclass_computing_the_attribute_is_not_proven(tmp_path):
    sub = (
        "\nclass Sub(Trainer):\n    @property\n    def mesh(self):\n        return 1\n"
    )
    assert asked(tmp_path, program(PLAIN))
    assert not asked(tmp_path, program(PLAIN) + sub)


def test_a_base_the_engine_cannot_see_is_not_proven(tmp_path):
    source = program(PLAIN).replace("class Trainer:", "class Trainer(Base):")
    assert not asked(tmp_path, "from elsewhere import Base\n" + source)


def test_an_attribute_of_a_module_of_the_tree(tmp_path):
    main = "import config\n\ndef run():\n    return config.MESH\n"
    plain = {"config": "MESH = None\n"}
    assert asked(tmp_path, main, plain)
    answering = {"config": "MESH = None\ndef __getattr__(name):\n    return 1\n"}
    assert not asked(tmp_path, main, answering)


def kept(tmp_path: Path, source: str) -> bool:
    """`attributes_kept` of the last `return`'s value."""
    path = tmp_path / "main.py"
    path.write_text(source)
    engine = Engine(roots=(tmp_path,), files=(path,), jax_version=(0, 10, 2))
    module = engine.module(path)
    assert isinstance(module, Module)
    returns = [n for n in ast.walk(module.tree) if isinstance(n, ast.Return)]
    assert returns[-1].value is not None
    return Analysis(engine, module).attributes_kept(returns[-1].value)


def test_the_attributes_of_a_chain_with_entries_are_kept(tmp_path):
    source = program(PLAIN).replace(
        "self.mesh = jax", "self.meshes = {}\n        self.mesh = jax"
    )
    assert kept(tmp_path, source.replace("return self.mesh", "return self.meshes['a']"))
    getter = "@property\ndef meshes(self):\n    return {}"
    assert not kept(
        tmp_path,
        program(PLAIN, getter).replace("return self.mesh", "return self.meshes['a']"),
    )
