"""What the `ast` engine answers for an attribute a setup method stores (`def setup_mesh(self):
self.mesh = ...`), run before any other use of every object of its class: first in
`__init__`, or right after each construction (`t = Trainer(); t.setup_mesh()`). One fact
each, no JAX imported (fast)."""

from __future__ import annotations

import pytest

from ast_programs import last_value
from jaxfix.analysis.ast_engine.values import Unknown

CLASS = """\
class Trainer:
    def __init__(self, config):
        self.config = config
        self.shape = None

    def setup(self):
        self.shape = (4, 2)

    def read(self):
        return self.shape
"""


def value(script: str, cls: str = CLASS):
    return last_value(cls + script)


def test_the_script_calls_it_right_after_building_the_object():
    assert value("t = Trainer(1)\nt.setup()\nt.read()\n") == (4, 2)


def test_init_calls_it_first():
    cls = CLASS.replace("        self.shape = None\n", "        self.setup()\n")
    assert value("t = Trainer(1)\nt.read()\n", cls) == (4, 2)


LAZY = """\
class Trainer:
    def __init__(self, config):
        self.config = config
        self._mesh = None

    def _setup_mesh(self):
        if self._mesh is not None:
            return
        self._mesh = (4, 2)

    def compile(self):
        self._setup_mesh()
        return self._mesh

    def peek(self):
        return self._mesh
"""


def test_the_reading_method_calls_a_memoizing_one_first():
    assert value("t = Trainer(1)\nt.compile()\n", LAZY) == (4, 2)


def test_another_objects_attribute_read_after_the_call_stays_unknown():
    cls = (
        LAZY
        + """
    def other_mesh(self, other):
        self._setup_mesh()
        return other._mesh
"""
    )
    assert isinstance(
        value("t = Trainer(1)\nu = Trainer(2)\nt.other_mesh(u)\n", cls), Unknown
    )


def test_a_method_that_does_not_call_it_first_stays_unknown():
    assert isinstance(value("t = Trainer(1)\nt.peek()\n", LAZY), Unknown)


def test_a_test_other_than_the_memo_one_before_the_store_stays_unknown():
    cls = LAZY.replace("if self._mesh is not None:", "if self.config:")
    assert isinstance(value("t = Trainer(1)\nt.compile()\n", cls), Unknown)


@pytest.mark.parametrize(
    "script",
    [
        # read before the setup call runs: None then
        "t = Trainer(1)\nx = t.read()\nt.setup()\nt.read()\n",
        # the setup call under a test: the order is not proven
        "t = Trainer(1)\nif flag:\n    t.setup()\nt.read()\n",
        # another object built without it
        "t = Trainer(1)\nt.setup()\nu = Trainer(2)\nu.read()\n",
        # built inside an expression: no statement after it to look at
        "t = Trainer(1)\nt.setup()\nprint(Trainer(2).read())\nt.read()\n",
        # stored from outside the class too
        "t = Trainer(1)\nt.setup()\nt.shape = (2, 2)\nt.read()\n",
        # called a second time, elsewhere than right after a construction
        "t = Trainer(1)\nt.setup()\nt.setup()\nt.read()\n",
    ],
)
def test_unproven_order_or_another_store_stays_unknown(script):
    assert isinstance(value(script), Unknown)


@pytest.mark.parametrize(
    "cls",
    [
        # a second setup method storing another value
        CLASS + "\n    def setup_small(self):\n        self.shape = (2, 2)\n",
        # `__init__` stores a value of its own, not None
        CLASS.replace("self.shape = None", "self.shape = (1, 1)"),
        # the setup method takes an argument: which one each call passes is not read
        CLASS.replace("def setup(self):", "def setup(self, n=4):"),
        # `__init__` hands the object on before the script's setup call
        CLASS.replace(
            "self.config = config", "self.config = config\n        log(self)"
        ),
        # the setup method may leave it unset
        CLASS.replace(
            "        self.shape = (4, 2)",
            "        if flag:\n            self.shape = (4, 2)",
        ),
    ],
)
def test_other_classes_stay_unknown(cls):
    found = value("t = Trainer(1)\nt.setup()\nt.read()\n", cls)
    assert isinstance(found, Unknown), found
