"""What the `ast` engine answers for an object its building function configures before it
escapes (axlearn's `cfg = C.default_config()`, `cfg.x = ...`, `cfg.set(y=...)`, `return cfg`):
one fact each, no JAX imported (fast)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from ast_programs import last_expr, parsed
from jaxfix.analysis.ast_engine import configured
from jaxfix.analysis.ast_engine.values import Unknown

CONFIGS = """\
import dataclasses

class Base:
    def set(self, **kwargs):
        for key, value in kwargs.items():
            if not hasattr(self, key):
                raise AttributeError(key)
            setattr(self, key, value)
        return self

    def instantiate(self):
        return self.klass(self)

class Configurable:
    @dataclasses.dataclass
    class Config(Base):
        klass: object = None
        name: str = "base"

    @classmethod
    def default_config(cls):
        cfg = cls.Config()
        cfg.klass = cls
        return cfg

    def __init__(self, cfg):
        self.config = cfg

class Runner(Configurable):
    @dataclasses.dataclass
    class Config(Configurable.Config):
        shape: tuple = (4, 2)

class Other(Configurable):
    @dataclasses.dataclass
    class Config(Configurable.Config):
        shape: tuple = (1, 1)
"""


def value(body: str):
    engine, module = parsed(CONFIGS + textwrap.dedent(body))
    return engine.value_of(module, last_expr(module))


@pytest.mark.parametrize(
    "body, expected",
    [
        # stored before it escapes, read after
        (
            "def make():\n    cfg = Runner.default_config()\n    cfg.shape = (2, 2)\n"
            "    return cfg\nv = make().shape",
            (2, 2),
        ),
        # the keywords of the setter method, and the class its class method stored
        (
            "def make():\n    return Runner.default_config().set(shape=(8, 1))\n"
            "v = make().instantiate().config.shape",
            (8, 1),
        ),
        # a field read while it is configured: what the stores before the read set
        (
            "def make():\n    cfg = Runner.default_config()\n    cfg.shape = (2, 2)\n"
            "    cfg.name = str(cfg.shape)\n    return cfg\nv = make().shape",
            (2, 2),
        ),
        # a stored tuple of constants passed on while configuring: still what was stored
        (
            "def make():\n    cfg = Runner.default_config()\n    cfg.shape = (2, 2)\n"
            "    cfg.name = str(cfg.shape)\n    cfg.klass = type(cfg.shape)\n"
            "    return cfg\nv = make().shape",
            (2, 2),
        ),
        # a store on another class's object leaves this one's default
        (
            "def other():\n    cfg = Other.default_config()\n    cfg.shape = (8, 1)\n"
            "    return cfg\nv = Runner.default_config().shape",
            (4, 2),
        ),
    ],
)
def test_an_object_configured_before_it_escapes(body, expected):
    assert value(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        # stored again after it escaped: the object built from it reads it later
        "def make():\n    cfg = Runner.default_config()\n    cfg.shape = (2, 2)\n"
        "    runner = cfg.instantiate()\n    cfg.shape = (8, 1)\n    return runner\n"
        "v = make().config.shape",
        # an attribute's list changed in place while configuring
        "def make():\n    cfg = Runner.default_config()\n    cfg.shape = [2, 2]\n"
        "    cfg.shape.append(1)\n    cfg.name = 'x'\n    return cfg\nv = make().shape",
        # a store under an `if`
        "def make(flag):\n    cfg = Runner.default_config()\n    if flag:\n"
        "        cfg.shape = (2, 2)\n    return cfg\nv = make(True).shape",
        # the setter given the field by another call on an object of the class
        "def make():\n    return Runner.default_config()\n"
        "def other(cfg):\n    cfg.set(shape=(8, 1))\nv = make().shape",
    ],
)
def test_an_object_changed_otherwise_is_unknown(body):
    assert isinstance(value(body), Unknown)


def _function(source: str) -> ast.FunctionDef:
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            "def set(self, **kw):\n    for k, v in kw.items():\n        setattr(self, k, v)\n"
            "    return self",
            True,
        ),
        # returns something else
        (
            "def set(self, **kw):\n    for k, v in kw.items():\n        setattr(self, k, v)\n"
            "    return None",
            False,
        ),
        # sets a key of its own making
        (
            "def set(self, **kw):\n    for k, v in kw.items():\n"
            "        setattr(self, 'x' + k, v)\n    return self",
            False,
        ),
        # does more than test the key in the loop
        (
            "def set(self, **kw):\n    for k, v in kw.items():\n        log(k)\n"
            "        setattr(self, k, v)\n    return self",
            False,
        ),
    ],
)
def test_keyword_setter(source, expected):
    assert configured.keyword_setter(_function(source)) is expected
