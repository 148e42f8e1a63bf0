"""What the `ast` engine answers for collections it does not spell out (`Items`), registries a
decorator fills, Enum members, functions jitted into a local name and closures over a filled
parameter, on small programs: one fact each, no JAX imported (fast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    Class,
    EnumMember,
    Instance,
    Items,
    Mesh,
    MeshKind,
    Sharding,
    Unknown,
)

HEAD = (
    "import enum, json, os\n"
    "import jax\n"
    "from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P\n"
    "TEXT = os.environ.get('SPECS', '{}')\n"
    "def abstract(shape):\n"
    "    return NamedSharding(AbstractMesh(tuple(shape), ('x',)), P())\n"
)


def last_value(tmp_path: Path, source: str):
    """The value of the last statement's expression (`m = ...`: its value)."""
    main = tmp_path / "main.py"
    main.write_text(HEAD + source + "\n")
    engine = Engine(roots=(tmp_path,), files=(main,), jax_version=(0, 10, 2))
    module = engine.module(main)
    assert isinstance(module, Module)
    last = module.tree.body[-1]
    assert isinstance(last, (ast.Assign, ast.Expr))
    return engine.value_of(module, last.value)


def _abstract_sharding(value: object) -> bool:
    return (
        isinstance(value, Sharding)
        and isinstance(value.mesh, Mesh)
        and value.mesh.kind is MeshKind.ABSTRACT
    )


def test_a_comprehension_over_unknown_data_gives_every_item(tmp_path: Path):
    found = last_value(
        tmp_path, "d = {k: abstract(v) for k, v in json.loads(TEXT).items()}"
    )
    assert isinstance(found, Items) and found.mapping
    assert _abstract_sharding(found.item)


@pytest.mark.parametrize(
    "read",
    [
        "d['w']",
        "next(iter(d.values()))",
        "list(d.values())[0]",
        "[v for v in d.values()][0]",
        "{k: v for k, v in d.items()}['w']",
    ],
)
def test_an_item_of_every_item_is_that_item(tmp_path: Path, read: str):
    found = last_value(
        tmp_path,
        f"d = {{k: abstract(v) for k, v in json.loads(TEXT).items()}}\nx = {read}",
    )
    assert _abstract_sharding(found), found


def test_an_element_that_depends_on_the_unknown_item_is_unknown(tmp_path: Path):
    found = last_value(tmp_path, "xs = [x * 2 for x in json.loads(TEXT)]")
    assert isinstance(found, Unknown)


def test_a_tree_map_over_every_item_keeps_the_collection(tmp_path: Path):
    found = last_value(
        tmp_path,
        "d = {k: abstract(v) for k, v in json.loads(TEXT).items()}\n"
        "e = jax.tree.map(lambda s: jax.ShapeDtypeStruct((2,), 'f4', sharding=s), d)",
    )
    assert isinstance(found, Items) and found.mapping


REGISTRY = (
    "_MODELS = {}\n"
    "def register(cls):\n"
    "    _MODELS[cls.__name__] = cls\n"
    "    return cls\n"
    "def named(name):\n"
    "    def add(cls):\n"
    "        _NAMED[name] = cls\n"
    "        return cls\n"
    "    return add\n"
    "_NAMED = {}\n"
)


@pytest.mark.parametrize(
    "classes, read, known",
    [
        ("@register\nclass A:\n    pass\n", "_MODELS[TEXT]", True),
        ("@named('a')\nclass A:\n    pass\n", "_NAMED[TEXT]", True),
        (
            "@register\nclass A:\n    pass\n@register\nclass B:\n    pass\n",
            "_MODELS[TEXT]",
            False,
        ),
        ("class A:\n    pass\nregister(A)\n", "_MODELS[TEXT]", True),
        # the registering function used otherwise: what it registers is not seen
        ("@register\nclass A:\n    pass\nhook = register\n", "_MODELS[TEXT]", False),
    ],
)
def test_a_registry_holds_what_its_decorator_registers(
    tmp_path: Path, classes: str, read: str, known: bool
):
    found = last_value(tmp_path, f"{REGISTRY}{classes}x = {read}")
    assert isinstance(found, Class) is known, found
    if known:
        assert isinstance(found, Class) and found.node.name == "A"


def test_a_registry_also_changed_elsewhere_is_unknown(tmp_path: Path):
    found = last_value(
        tmp_path,
        f"{REGISTRY}@register\nclass A:\n    pass\n_MODELS.clear()\nx = _MODELS[TEXT]",
    )
    assert isinstance(found, Unknown)


@pytest.mark.parametrize(
    "bases, read, expected",
    [
        ("enum.Enum", "Axis.DATA.value", "data"),
        ("enum.Enum", "Axis.DATA.name", "DATA"),
        ("str, enum.Enum", "Axis.DATA", "data"),  # a str mixin's member is a str
    ],
)
def test_an_enum_member_knows_its_value(
    tmp_path: Path, bases: str, read: str, expected: str
):
    found = last_value(tmp_path, f"class Axis({bases}):\n    DATA = 'data'\nx = {read}")
    assert found == expected


def test_an_enum_member_is_not_its_value(tmp_path: Path):
    found = last_value(
        tmp_path, "class Axis(enum.Enum):\n    DATA = 'data'\nx = Axis.DATA"
    )
    assert isinstance(found, EnumMember) and found.value == "data"


@pytest.mark.parametrize(
    "body, known",
    [
        (
            "    if shape is None:\n        shape = (2, 2)\n    def build():\n        return shape\n",
            True,
        ),
        # bound again after the definition: the function may see either
        ("    def build():\n        return shape\n    shape = (2, 2)\n", False),
        # defined in a loop: each round may see another value
        (
            "    for _ in range(2):\n        def build():\n            return shape\n        shape = (2, 2)\n",
            False,
        ),
    ],
)
def test_a_closure_sees_what_reaches_its_definition(
    tmp_path: Path, body: str, known: bool
):
    found = last_value(
        tmp_path, f"def make(shape=None):\n{body}    return build()\nx = make()"
    )
    assert (found == (2, 2)) is known, found


def test_a_registry_another_module_changes_is_unknown(tmp_path: Path):
    (tmp_path / "registry.py").write_text(REGISTRY)
    (tmp_path / "models.py").write_text(
        "import registry\n@registry.register\nclass A:\n    pass\n"
        "class B:\n    pass\nregistry._MODELS['b'] = B\n"
    )
    main = tmp_path / "main.py"
    main.write_text(
        "import os, registry, models\nx = registry._MODELS[os.environ['M']]\n"
    )
    files = tuple(sorted(tmp_path.glob("*.py")))
    engine = Engine(roots=(tmp_path,), files=files, jax_version=(0, 10, 2))
    module = engine.module(main)
    assert isinstance(module, Module)
    last = module.tree.body[-1]
    assert isinstance(last, ast.Assign)
    assert isinstance(engine.value_of(module, last.value), Unknown)


@pytest.mark.parametrize(
    "read, built",
    [
        (
            "_MODELS.get(TEXT)()",
            True,
        ),  # calling None raises: a call that returns built A
        ("_MODELS.get(TEXT, A)()", False),  # the default is another value
        ("_MODELS.get(TEXT)", False),  # A, or None
    ],
)
def test_a_registry_get_is_what_is_registered_or_none(
    tmp_path: Path, read: str, built: bool
):
    found = last_value(tmp_path, f"{REGISTRY}@register\nclass A:\n    pass\nx = {read}")
    assert (isinstance(found, Instance) and found.cls.node.name == "A") is built, found


@pytest.mark.parametrize(
    "klass, known",
    [
        # a class of the tree with its own `__getitem__`: `obj[k]` calls it
        (
            "class C:\n    def __init__(self):\n        self.shapes = {'eval': (2, 2)}\n"
            "    def __getitem__(self, k):\n        return self.shapes[k]\n",
            True,
        ),
        # a base outside the tree may hold it: not known
        ("class C(dict):\n    pass\n", False),
    ],
)
def test_an_object_subscript_calls_its_getitem(tmp_path: Path, klass: str, known: bool):
    found = last_value(tmp_path, f"{klass}x = C()['eval']")
    assert (found == (2, 2)) is known, found
