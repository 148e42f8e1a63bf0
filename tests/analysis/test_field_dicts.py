"""What the `ast` engine answers for a config class whose attributes are the items of a dict it
keeps (ml_collections' `ConfigDict` as a project's stand-in writes it), filled by attribute
stores in the function that builds it. One fact each, no JAX imported (fast)."""

from __future__ import annotations

import pytest

from ast_programs import last_value
from jaxfix.analysis.ast_engine.values import Namespace, Unknown

STAND_IN = """\
class ConfigDict:
    def __init__(self, initial=None):
        object.__setattr__(self, "_fields", dict(initial or {}))

    def __setattr__(self, name, value):
        self._fields[name] = value

    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError as error:
            raise AttributeError(name) from error
"""

GET_CONFIG = """
def get_config():
    config = ConfigDict()
    config.mesh_shape = (4, 2)
    config.model = ConfigDict()
    config.model.axis_names = ("data", "model")
    return config
"""


def value(read: str, cls: str = STAND_IN):
    return last_value(cls + GET_CONFIG + read)


def test_stores_in_the_building_function_are_its_entries():
    assert value("get_config().mesh_shape\n") == (4, 2)
    assert value("get_config().model.axis_names\n") == ("data", "model")


@pytest.mark.parametrize(
    "cls",
    [
        # `__getattr__` answers a default for a missing entry: not only what was stored
        STAND_IN.replace(
            "        try:\n            return self._fields[name]\n"
            "        except KeyError as error:\n            raise AttributeError(name) from error\n",
            "        return self._fields.get(name, (1, 1))\n",
        ),
        # `__setattr__` keeps something else than the value
        STAND_IN.replace(
            "self._fields[name] = value", "self._fields[name] = tuple(value)"
        ),
        # `__init__` starts it with entries of its own
        STAND_IN.replace("dict(initial or {})", '{"mesh_shape": (1, 1)}'),
        # `__init__` does more than start the dict
        STAND_IN.replace(
            "dict(initial or {}))",
            "dict(initial or {}))\n        self.mesh_shape = (1, 1)",
        ),
    ],
)
def test_other_classes_are_not_taken_for_it(cls):
    assert isinstance(value("get_config().model.axis_names\n", cls), Unknown)


def test_a_construction_with_entries_is_not_taken_for_an_empty_one():
    assert isinstance(last_value(STAND_IN + "ConfigDict()\n"), Namespace)
    assert not isinstance(last_value(STAND_IN + 'ConfigDict({"a": 1})\n'), Namespace)
