"""The arguments a class's `__init__` gets where the class is used as a value, as the `ast`
engine follows them: passed to a function that calls its parameter, a registry's entry read
by a known key, chosen by `a if test else b`, returned by a function, a base of a subclass
(with or without an `__init__` of its own), built by a class method's `cls(...)`; uses that
only name the class (annotations, `isinstance`) build nothing. A use jaxfix cannot follow
(the class kept in an attribute) leaves the parameters Unknown."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ast_programs import of_file, write
from jaxfix.analysis.ast_engine.values import Unknown

MODELS = """\
class Base:
    def __init__(self, shape):
        self.shape = shape

    @classmethod
    def from_config(cls, config):
        return cls(config["shape"])

    def read(self):
        return self.shape


class Model:
    def __init__(self, shape):
        self.shape = shape

    def read(self):
        return self.shape


class Small(Base):
    pass


class Wide(Base):
    def __init__(self, shape):
        super().__init__((1, 8))

    def wide(self):
        return self.shape
"""


def read_in(tmp_path: Path, main: str, cls: str, models: str = MODELS) -> object:
    """The value of `self.shape` in `cls.read` (models.py) with `main.py` the program."""
    write(tmp_path, {"models.py": models, "main.py": main})
    engine, module = of_file(tmp_path / "models.py", (tmp_path,))
    klass = next(c for c in module.classes if c.name == cls)
    method = next(
        s
        for s in klass.body
        if isinstance(s, ast.FunctionDef)
        and s.name != "__init__"
        and not s.decorator_list
    )
    returned = next(s for s in method.body if isinstance(s, ast.Return))
    assert returned.value is not None
    return engine.value_of(module, returned.value)


@pytest.mark.parametrize(
    "main",
    [
        # passed to a function that calls its parameter; a name's annotation
        (
            "from models import Model\n"
            "def build(model_cls, shape):\n"
            "    return model_cls(shape)\n"
            "def run(model: Model) -> Model:\n"
            "    return model\n"
            "build(Model, (4, 2)).read()\n"
        ),
        # a registry read by a known key; an isinstance test
        (
            "from models import Base, Model\n"
            "REGISTRY = {'model': Model, 'base': Base}\n"
            "m = REGISTRY['model']((4, 2))\n"
            "b = REGISTRY['base']((8, 1))\n"
            "isinstance(m, Model)\n"
        ),
        # chosen by a conditional expression, both choices built with the same shape
        (
            "from models import Base, Model\n"
            "def make(flag):\n"
            "    cls = Model if flag else Base\n"
            "    return cls((4, 2))\n"
        ),
        # returned by a function, then called
        (
            "from models import Model\n"
            "def model_class():\n"
            "    return Model\n"
            "def make():\n"
            "    return model_class()((4, 2))\n"
        ),
    ],
)
def test_a_class_used_as_a_value_is_built_with_what_its_calls_pass(tmp_path, main):
    assert read_in(tmp_path, main, "Model") == (4, 2)


def test_a_subclass_and_a_class_method_build_the_base(tmp_path):
    main = "from models import Small\nSmall.from_config({'shape': (2, 2)}).read()\n"
    without_wide = MODELS[: MODELS.index("class Wide")]
    assert read_in(tmp_path, main, "Base", without_wide) == (2, 2)
    # `read` is called on one object only, the Small the class method built: its fields
    assert read_in(tmp_path, main, "Base") == (2, 2)
    # called also on an object jaxfix does not see built: Wide's own __init__ passes (1, 8)
    # to the base's, and the inherited class method may build a Wide: a construction of the
    # base too
    anywhere = main + "def use(model):\n    return model.read()\n"
    found = read_in(tmp_path, anywhere, "Base")
    assert isinstance(found, Unknown) and "different" in found.why, found


def test_a_class_method_of_a_base_outside_the_tree_may_build_the_class(tmp_path):
    main = (
        "import keras\n"
        "class Layer(keras.layers.Layer):\n"
        "    def __init__(self, shape):\n"
        "        self.shape = shape\n"
        "    def read(self):\n"
        "        return self.shape\n"
        "Layer((4, 2))\n"
        "Layer.from_config({'shape': (8, 1)})\n"
    )
    write(tmp_path, {"main.py": main})
    engine, module = of_file(tmp_path / "main.py", (tmp_path,))
    method = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.FunctionDef) and n.name == "read"
    )
    returned = method.body[0]
    assert isinstance(returned, ast.Return) and returned.value is not None
    found = engine.value_of(module, returned.value)
    assert isinstance(found, Unknown) and "used other than called" in found.why, found


def test_a_class_kept_where_jaxfix_does_not_follow_leaves_its_parameters_unknown(
    tmp_path,
):
    main = (
        "from models import Model\n"
        "class Holder:\n"
        "    def __init__(self):\n"
        "        self.cls = Model\n"
        "Model((4, 2))\n"
    )
    found = read_in(tmp_path, main, "Model")
    assert isinstance(found, Unknown) and "used other than called" in found.why, found
