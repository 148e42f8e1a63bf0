"""What the `ast` engine answers for a dict attribute a class fills only through its own
`__setitem__` (keras' `LayoutMap`), and for lookups that may give None: one fact each, no
JAX imported (fast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Instance, Unknown

LAYOUTS = (
    "import collections\n"
    "class Layout:\n"
    "    def __init__(self, axes, shape):\n"
    "        self.axes = axes\n"
    "        self.shape = shape\n"
    "class Other:\n"
    "    def __init__(self, axes, shape):\n"
    "        self.axes = axes\n"
    "class LayoutMap:\n"
    "    def __init__(self, shape):\n"
    "        self._layouts = collections.OrderedDict()\n"
    "        self._shape = shape\n"
    "    def __setitem__(self, key, layout):\n"
    "        if isinstance(layout, tuple):\n"
    "            layout = Layout(layout, self._shape)\n"
    "        self._layouts[key] = layout\n"
    "    def __getitem__(self, key):\n"
    "        if key in self._layouts:\n"
    "            return self._layouts[key]\n"
    "        return None\n"
    "    def __delitem__(self, key):\n"
    "        del self._layouts[key]\n"
)


def last_value(tmp_path: Path, source: str, layouts: str = LAYOUTS):
    """The value of `probe = ...` in `main()` of main.py (layouts.py beside it)."""
    (tmp_path / "layouts.py").write_text(layouts)
    main = tmp_path / "main.py"
    main.write_text("from layouts import LayoutMap, Other\n" + source + "\n")
    engine = Engine(
        roots=(tmp_path,),
        files=(main, tmp_path / "layouts.py"),
        jax_version=(0, 10, 2),
    )
    module = engine.module(main)
    assert isinstance(module, Module)
    probe = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id == "probe"
    )
    return engine.value_of(module, probe.value)


FILLED = (
    "def main(name):\n"
    "    m = LayoutMap((2, 4))\n"
    "    m['w'] = (None, 'model')\n"
    "    m['b'] = ('model',)\n"
)


def test_an_item_is_the_object_every_store_keeps_with_the_arguments_they_agree_on(
    tmp_path: Path,
):
    found = last_value(
        tmp_path,
        FILLED + "    x = m[name]\n    if x is not None:\n        probe = x\n",
    )
    assert isinstance(found, Instance) and found.cls.node.name == "Layout"
    given = dict(found.init or ())
    assert given["shape"] == (2, 4)
    assert isinstance(given["axes"], Unknown)


def test_a_lookup_that_may_give_none_stays_unknown_unless_tested(tmp_path: Path):
    found = last_value(tmp_path, FILLED + "    probe = m[name]\n")
    assert isinstance(found, Unknown)


@pytest.mark.parametrize(
    "other",
    [
        "    m['c'] = Other((), (2, 4))\n",  # objects of two classes
        "    m.update({'c': None})\n",  # a MutableMapping's way to `__setitem__`
        "    m._layouts['c'] = None\n",  # a store beside `__setitem__`
        "    m['c'] += ()\n",
    ],
)
def test_any_other_store_leaves_the_item_unknown(tmp_path: Path, other: str):
    found = last_value(
        tmp_path,
        FILLED + other + "    x = m[name]\n    if x is not None:\n        probe = x\n",
    )
    assert isinstance(found, Unknown), found


def test_a_dict_another_method_fills_is_not_followed(tmp_path: Path):
    layouts = LAYOUTS + (
        "    def add(self, key, axes):\n        self._layouts[key] = Other(axes, None)\n"
    )
    found = last_value(
        tmp_path,
        FILLED + "    x = m[name]\n    if x is not None:\n        probe = x\n",
        layouts,
    )
    assert isinstance(found, Unknown), found


def test_a_rebinding_between_test_and_read_is_not_narrowed(tmp_path: Path):
    found = last_value(
        tmp_path,
        FILLED
        + "    x = m[name]\n    if x is not None:\n        x = m[name]\n        probe = x\n",
    )
    assert isinstance(found, Unknown), found


def test_a_call_of_a_function_that_returns_on_no_way_is_unknown(tmp_path: Path):
    """A function that always raises has no returns to join (jax/_src/hijax.py's
    `NotImplementedError` stubs)."""
    found = last_value(
        tmp_path,
        "def fails():\n    raise NotImplementedError\n"
        "def main(name):\n    probe = fails()\n",
    )
    assert isinstance(found, Unknown), found


RUNNER = (
    "class Worker:\n"
    "    def __init__(self, steps):\n"
    "        self.steps = steps\n"
    "class Runner:\n"
    "    def __init__(self):\n"
    "        self.worker = None\n"
    "    def run(self):\n"
    "        if self.worker is not None:\n"
    "            probe = self.worker.steps\n"
    "def main():\n"
    "    runner = Runner()\n"
    "    runner.run()\n"
    "    runner.worker = Worker(3)\n"
    "    runner.run()\n"
)


def _runner_value(tmp_path: Path, source: str):
    main = tmp_path / "main.py"
    main.write_text(source)
    engine = Engine(roots=(tmp_path,), files=(main,), jax_version=(0, 10, 2))
    module = engine.module(main)
    assert isinstance(module, Module)
    probe = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id == "probe"
    )
    return engine.value_of(module, probe.value)


def test_an_attribute_none_in_init_stored_from_outside_is_read_under_its_test(
    tmp_path: Path,
):
    assert _runner_value(tmp_path, RUNNER) == 3


@pytest.mark.parametrize(
    "change",
    [
        # something runs between the test and the read
        (
            "            probe = self.worker.steps\n",
            "            self.reset()\n            probe = self.worker.steps\n",
        ),
        # two objects stored from outside: either may be there
        (
            "    runner.worker = Worker(3)\n",
            "    runner.worker = Worker(3)\n    runner.worker = Worker(4)\n",
        ),
        # not a test of that attribute
        (
            "        if self.worker is not None:\n",
            "        if self.other is not None:\n",
        ),
    ],
)
def test_an_attribute_stored_from_outside_is_otherwise_unknown(
    tmp_path: Path, change: tuple[str, str]
):
    source = RUNNER.replace(*change)
    assert source != RUNNER
    assert isinstance(_runner_value(tmp_path, source), Unknown)
