"""The `ast` engine's answers on small programs: one fact each, no JAX imported (fast).

Each program binds `out`; the test asks the engine for the value of `out` at the last line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    External,
    Jitted,
    ListValue,
    Mesh,
    MeshContext,
    OneOf,
    Sharding,
    Spec,
    Structs,
    Unknown,
    Value,
)
from jaxfix.analysis.names import Api

HEAD = (
    "import math, dataclasses, functools\n"
    "import jax\n"
    "from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P\n"
    "from jax.sharding import use_abstract_mesh\n"
)


def value(tmp_path: Path, source: str, files: dict[str, str] | None = None) -> Value:
    for name, text in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    main = tmp_path / "main.py"
    main.write_text(HEAD + source + "\nprint(out)\n")
    engine = Engine(
        roots=(tmp_path,), files=tuple(tmp_path.rglob("*.py")), jax_version=(0, 10, 2)
    )
    module = engine.module(main)
    assert isinstance(module, Module)
    read = module.tree.body[-1]
    assert isinstance(read, ast.Expr) and isinstance(read.value, ast.Call)
    return engine.value_of(module, read.value.args[0])


def sizes(found: Value) -> object:
    return found.axis_sizes if isinstance(found, Mesh) else found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # reaching definitions
        ("x = 8\nx = 16\nout = x", 16),
        ("import sys\nif sys.argv:\n    x = 4\nelse:\n    x = 4\nout = x", 4),
        ("x = 8\nfor _ in range(3):\n    x = 8\nout = x", 8),
        ("if False:\n    x = 2\nelse:\n    x = 3\nout = x", 3),
        # containers
        ('axes = {"data": 4, "model": 2}\nout = tuple(axes.values())', (4, 2)),
        ('out = dict(data=4, model=2)["model"]', 2),
        ("sizes = (2, 4)\nout = math.prod(sizes)", 8),
        ("out = [s * 2 for s in (1, 2)]", None),
        ("xs = (1, 2, 3)\nout = xs[:2] + (9,)", (1, 2, 9)),
        ('d = {"a": 1}\nout = d.get("b", 7)', 7),
        # `f(*xs)`, `f(**d)`: f gets a copy, never the list or dict itself
        ("def f(*a, **k):\n    return 0\nd = {'a': 4}\nf(**d)\nout = d['a']", 4),
        ("def f(*a, **k):\n    return 0\nxs = [4]\nf(*xs)\nout = xs[0]", 4),
        # interprocedural: a parameter passed on to a second call
        ("def g(b):\n    return b\ndef f(a):\n    return g(a)\nout = f(3)", 3),
        # objects
        (
            "class C:\n    def __init__(self, n):\n        self.n = n\nout = C(5).n",
            5,
        ),
        (
            "@dataclasses.dataclass(frozen=True)\nclass Cfg:\n    dp: int\n    tp: int = 2\n"
            "    @property\n    def size(self):\n        return self.dp * self.tp\n"
            "out = Cfg(4).size",
            8,
        ),
        ("class K:\n    N = 3\nout = K.N", 3),
        # builtins over known values, device lists
        ("out = min(8, 4) + max(1, 2)", 6),
        ("out = tuple(s // p for p, s in zip((4, 1), (8, 2), strict=True))", (2, 2)),
        ("out = len(list(jax.devices()[:8]))", 8),
        # isinstance of JAX classes decides a branch
        (
            'm = AbstractMesh((8,), ("x",))\n'
            "def pick(m):\n    if isinstance(m, jax.sharding.Mesh):\n        return 1\n"
            "    return 2\nout = pick(m)",
            2,
        ),
        # functools.partial of a JAX class binds positional arguments
        (
            'm = AbstractMesh((8, 4), ("data", "model"))\n'
            "out = functools.partial(NamedSharding, m)(P()).mesh",
            (8, 4),
        ),
        # a dict filled in a loop over known items, read after it
        (
            "def fill(shapes):\n    out = {}\n    for k, v in shapes.items():\n"
            "        out[k] = v * 2\n    return out\nout = fill({'a': 2, 'b': 3})['b']",
            6,
        ),
        # an attribute config built by stores, read with .get, [k] and attributes
        (
            "class Cfg(dict):\n    def __getattr__(self, name):\n        return self[name]\n"
            "    def __setattr__(self, name, value):\n        self[name] = value\n"
            "def get_config():\n    c = Cfg()\n    c.a = 4\n    c.d = Cfg()\n    c.d.b = 2\n"
            "    return c\ncfg = get_config()\nout = cfg.get('a') * cfg.d.b * cfg['d']['b']",
            16,
        ),
        # such a config called as `dict` is, by `create(**kwargs)`: a mapping, then keywords
        (
            "class Cfg(dict):\n    def __getattr__(self, name):\n        return self[name]\n"
            "    def __setattr__(self, name, value):\n        self[name] = value\n"
            "def create(**kwargs):\n    return Cfg(**kwargs)\n"
            "out = create(a=4).a * Cfg({'b': 3, 'c': 1}, c=2).c",
            8,
        ),
        # ml_collections' `create(**kwargs)`: the ConfigDict of its keywords, nested too
        (
            "from ml_collections import config_dict\n"
            "out = config_dict.create(a=4, b=config_dict.create(c=2)).b.c",
            2,
        ),
        # a dataclass field whose default a class of the tree makes (`default_factory=Cls`)
        (
            "@dataclasses.dataclass(frozen=True)\nclass Inner:\n    n: int = 4\n"
            "@dataclasses.dataclass(frozen=True)\nclass Outer:\n"
            "    inner: Inner = dataclasses.field(default_factory=Inner)\n"
            "out = Outer().inner.n",
            4,
        ),
        # meshes
        ('m = AbstractMesh((8, 4), ("data", "model"))\nout = m.shape["data"]', 8),
        (
            "import numpy as np\nd = np.empty((8, 1), dtype=object)\n"
            'out = jax.sharding.Mesh(d.reshape((4, 2)), ("a", "b"))',
            (4, 2),
        ),
        (
            'm = AbstractMesh((8, 4), ("data", "model"))\nout = m.axis_sizes[:1] + (2,)',
            (8, 2),
        ),
        (
            'm = jax.make_mesh((8, 4), ("data", "model"))\n'
            "out = m.abstract_mesh.update(axis_sizes=(2, 16))",
            (2, 16),
        ),
    ],
)
def test_known_values(tmp_path: Path, source: str, expected: object) -> None:
    found = value(tmp_path, source)
    if expected is None:  # a list
        assert getattr(found, "items", None) == (2, 4)
    else:
        assert sizes(found) == expected


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nif sys.argv:\n    x = 4\nelse:\n    x = 8\nout = x",
        "x = 1\nfor _ in range(3):\n    x = x * 2\nout = x",
        'd = {}\nd["a"] = 3\nout = d',
        # a config store under an `if`, or read before the last store: not known
        "import types\ndef get_config(flag):\n    c = types.SimpleNamespace()\n"
        "    c.a = 4\n    if flag:\n        c.a = 8\n    return c\nout = get_config(1).a",
        "import types\ndef get_config():\n    c = types.SimpleNamespace()\n"
        "    c.a = 4\n    b = c.a\n    c.a = 8\n    return b\nout = get_config()",
        # a store into a nested entry through the name of the config its caller got
        "import types\ndef get_config():\n    c = types.SimpleNamespace()\n"
        "    c.eval = types.SimpleNamespace()\n    c.eval.a = 4\n    return c\n"
        "def main():\n    c = get_config()\n    c.eval.a = 8\n    return c.eval.a\n"
        "out = main()",
        # a loop that may stop early, or a store under an `if`: not the whole dict
        "def fill(xs):\n    out = {}\n    for k in xs:\n        if k:\n"
        "            out[k] = 1\n    return out\nout = fill((0, 2))[2]",
        "def fill(xs):\n    out = {}\n    for k in xs:\n        out[k] = 1\n"
        "        break\n    return out\nout = fill((1, 2))[2]",
        "xs = [1]\nxs.append(2)\nout = xs",
        "def f(a):\n    return a\nout = f",  # a function value is known; its call below
        "import os\nout = os.environ['N']",
    ],
)
def test_unknown_never_stale(tmp_path: Path, source: str) -> None:
    found = value(tmp_path, source)
    if source.endswith("out = f"):
        return  # (a Function value: checked by test_known_values' calls)
    assert isinstance(found, Unknown), found


def test_parameters_from_all_callers(tmp_path: Path) -> None:
    source = "def f(a):\n    out = a\n    return out\nf(4)\nf(4)\n"  # only called
    main = tmp_path / "main.py"
    main.write_text(HEAD + source + "\n")
    engine = Engine(roots=(tmp_path,), files=(main,))
    module = engine.module(main)
    assert isinstance(module, Module)
    inner = next(
        n for n in ast.walk(module.tree) if isinstance(n, ast.Return) and n.value
    )
    assert inner.value is not None
    assert engine.value_of(module, inner.value) == 4
    main.write_text(HEAD + source.replace("f(4)\nf(4)", "f(4)\nf(8)") + "\n")
    engine = Engine(roots=(tmp_path,), files=(main,))
    module = engine.module(main)
    assert isinstance(module, Module)
    inner = next(
        n for n in ast.walk(module.tree) if isinstance(n, ast.Return) and n.value
    )
    assert inner.value is not None
    assert isinstance(engine.value_of(module, inner.value), Unknown)


def test_imports_across_modules(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/meshes.py": (
            "import jax\nfrom jax.sharding import AbstractMesh\n"
            "from . import sizes as s\n"
            "def train_mesh(dp):\n    return AbstractMesh((dp, s.TP), ('data', 'model'))\n"
            "set_mesh = jax.set_mesh if hasattr(jax, 'set_mesh') else jax.sharding.set_mesh\n"
        ),
        "pkg/sizes.py": "TP = 2\n",
    }
    found = value(
        tmp_path, "from pkg.meshes import train_mesh as tm\nout = tm(4)", files
    )
    assert sizes(found) == (4, 2)
    alias = value(tmp_path, "from pkg import meshes\nout = meshes.set_mesh", files)
    assert alias == External("jax.set_mesh")


def test_two_projects_never_share_a_module(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    assert value(one, "from helper import N\nout = N", {"helper.py": "N = 1\n"}) == 1
    assert value(two, "from helper import N\nout = N", {"helper.py": "N = 2\n"}) == 2


def test_sharding_and_eval_shape_under_a_context(tmp_path: Path) -> None:
    source = (
        'm = AbstractMesh((2, 4), ("x", "y"))\n'
        "with use_abstract_mesh(m):\n    out = jax.eval_shape(abs, 1)\n"
    )
    found = value(tmp_path, source)
    assert isinstance(found, Structs) and sizes(found.mesh) == (2, 4)
    found = value(tmp_path, 'out = NamedSharding(AbstractMesh((8,), ("x",)), P("x"))')
    assert isinstance(found, Sharding) and sizes(found.mesh) == (8,)


def test_a_function_used_otherwise_keeps_its_parameters_unknown(tmp_path: Path) -> None:
    main = tmp_path / "main.py"
    main.write_text("def f(a):\n    return a\nf(4)\ng = f\n")
    engine = Engine(roots=(tmp_path,), files=(main,))
    module = engine.module(main)
    assert isinstance(module, Module)
    returned = next(n for n in ast.walk(module.tree) if isinstance(n, ast.Return))
    assert returned.value is not None
    found = engine.value_of(module, returned.value)
    assert isinstance(found, Unknown) and "used other than called" in found.why


def test_callers_in_other_modules_and_one_that_does_not_parse(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    helpers = pkg / "helpers.py"
    helpers.write_text("def scale(a):\n    return a\n")
    (pkg / "main.py").write_text("from pkg.helpers import scale\nscale(4)\n")

    def returned() -> Value:
        engine = Engine(roots=(tmp_path,), files=tuple(pkg.rglob("*.py")))
        module = engine.module(helpers)
        assert isinstance(module, Module)
        node = next(n for n in ast.walk(module.tree) if isinstance(n, ast.Return))
        assert node.value is not None
        return engine.value_of(module, node.value)

    assert returned() == 4
    broken = pkg / "broken.py"
    broken.write_text("from pkg.helpers import scale\nscale(8)\ndef (:\n")
    found = returned()  # its call of scale cannot be seen: never 4
    assert isinstance(found, Unknown) and "does not parse" in found.why, found


ENTER = (
    "from jax.sharding import AbstractMesh, use_abstract_mesh\n"
    "M = AbstractMesh((4, 2), ('data', 'model'))\n"
    "class Scope:\n"
    "    def __enter__(self):\n"
    "        self.context = use_abstract_mesh(M)\n"
    "        return self.context.__enter__()\n"
    "    def __exit__(self, *exc):\n"
    "        return self.context.__exit__(*exc)\n"
)


@pytest.mark.parametrize(
    ("tail", "known"),
    [
        ("with Scope():\n    pass\n", True),  # run only by its `with` items
        ("s = Scope()\nwith s:\n    pass\n", False),  # the object reaches other code
        ("class Sub(Scope):\n    pass\nwith Scope():\n    pass\n", False),
    ],
)
def test_code_in_enter_runs_where_its_with_items_are(
    tmp_path: Path, tail: str, known: bool
) -> None:
    main = tmp_path / "main.py"
    main.write_text(ENTER + tail)
    engine = Engine(roots=(tmp_path,), files=(main,))
    module = engine.module(main)
    assert isinstance(module, Module)
    entering = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "use_abstract_mesh"
    )
    found = engine.current_mesh(module, entering)
    assert (found is None) if known else isinstance(found, Unknown), found


WRAPPER = (
    "import functools\n"
    "from jax.sharding import AbstractMesh, use_abstract_mesh\n"
    "def deco(fn):\n"
    "    @functools.wraps(fn)\n"
    "    def wrapper(*args):\n"
    "        with use_abstract_mesh(AbstractMesh((4,), ('x',))):\n"
    "            return fn(*args)\n"
    "    return wrapper\n"
)


@pytest.mark.parametrize(
    ("tail", "known"),
    [
        ("@deco\ndef f():\n    pass\nf()\n", True),  # runs where `f` is called
        ("def f():\n    pass\ndeco(f)()\n", True),
        ("def f():\n    pass\ng = deco(f)\n", False),  # the wrapper reaches other code
        # under another decorator: that one's wrapper runs it, unseen here
        (
            "def other(fn):\n    return fn\n@other\n@deco\ndef f():\n    pass\nf()\n",
            False,
        ),
    ],
)
def test_code_in_a_wrapper_runs_where_the_decorated_function_is_called(
    tmp_path: Path, tail: str, known: bool
) -> None:
    main = tmp_path / "main.py"
    main.write_text(WRAPPER + tail)
    engine = Engine(roots=(tmp_path,), files=(main,))
    module = engine.module(main)
    assert isinstance(module, Module)
    entering = next(
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "use_abstract_mesh"
    )
    found = engine.current_mesh(module, entering)
    assert (found is None) if known else isinstance(found, Unknown), found


@pytest.mark.parametrize(
    ("alias", "known"),
    [
        # both sides set the mesh: the same context when entered
        ("jax.set_mesh if hasattr(jax, 'set_mesh') else jax.sharding.use_mesh", True),
        ("jax.set_mesh if hasattr(jax, 'v2') else contextlib.nullcontext", False),
        ("jax.set_mesh if hasattr(jax, 'v2') else other", False),
    ],
)
def test_a_call_of_a_conditional_alias_is_each_sides_call(
    tmp_path: Path, alias: str, known: bool
) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/compat.py": (
            "import contextlib\nimport jax\n"
            "def other(mesh):\n    return mesh\n"
            f"set_mesh = {alias}\n"
        ),
    }
    source = (
        "from pkg.compat import set_mesh\n"
        "out = set_mesh(AbstractMesh((4, 2), ('data', 'model')))"
    )
    found = value(tmp_path, source, files)
    if known:
        assert isinstance(found, MeshContext) and sizes(found.mesh) == (4, 2)
        assert found.api is Api.USE_MESH
    else:
        assert isinstance(found, Unknown) and not isinstance(found, OneOf), found
    # the alias itself is one of two values: Unknown, and so is anything but its call
    alias_value = value(tmp_path, "from pkg.compat import set_mesh\nout = set_mesh")
    assert isinstance(alias_value, OneOf)
    attribute = value(tmp_path, "from pkg.compat import set_mesh\nout = set_mesh.x")
    assert isinstance(attribute, Unknown) and not isinstance(attribute, OneOf)


def test_jit_of_a_function_from_outside_the_tree_keeps_its_keywords(
    tmp_path: Path,
) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/steps.py": (
            "import jax\nimport jax.numpy as jnp\n"
            "def step(backend=None):\n"
            "    if backend is None:\n        return jax.jit(jnp.tanh), 1\n"
            "    return jax.jit(jnp.tanh, backend=backend), 1\n"
        ),
    }
    source = "from pkg.steps import step\nfn, _ = step(backend='cpu')\nout = fn"
    found = value(tmp_path, source, files)
    assert isinstance(found, Jitted) and found.keywords == (("backend", "cpu"),)
    plain = value(tmp_path, "from pkg.steps import step\nout = step()[0]")
    assert isinstance(plain, Jitted) and plain.keywords == ()
    assert found != plain  # what they know tells them apart


def test_a_methods_self_is_the_one_object_it_is_called_on(tmp_path: Path) -> None:
    """Asked inside a method with no call followed, `self` of a dataclass is the object every
    call of the method in the project is made on, when jaxfix saw it built; objects that differ
    between the calls leave it unknown."""
    (tmp_path / "objects.py").write_text(
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class P:\n"
        "    n: int = 1\n"
        "    def m(self):\n"
        "        return self.n\n"
        "    def f(self):\n"
        "        return self.m()\n"
        "    def g(self):\n"
        "        return self.m()\n"
    )
    (tmp_path / "main.py").write_text(
        "import objects\nA = objects.P(n=2)\nB = objects.P(n=3)\nA.f()\nB.g()\n"
    )
    engine = Engine(
        roots=(tmp_path,), files=tuple(tmp_path.rglob("*.py")), jax_version=(0, 10, 2)
    )
    module = engine.module(tmp_path / "objects.py")
    assert isinstance(module, Module)
    returned = {
        node.name: engine.value_of(module, node.body[-1].value)
        for node in ast.walk(module.tree)
        if isinstance(node, ast.FunctionDef)
        and isinstance(node.body[-1], ast.Return)
        and node.body[-1].value is not None
    }
    assert returned["f"] == 2 and returned["g"] == 3
    assert isinstance(returned["m"], Unknown)  # called on A (through f) and on B


def test_a_partition_spec_iterates_its_parts(tmp_path: Path) -> None:
    found = value(
        tmp_path,
        'spec = P("data", None, "model")\n'
        'out = P(*[None if a == "data" else a for a in spec], reduced={"data"})',
    )
    assert isinstance(found, Spec)
    assert found.parts == (None, None, "model")
    assert found.reduced == frozenset({"data"})


def test_a_comprehension_variable_bound_to_none_reads_none(tmp_path: Path) -> None:
    found = value(tmp_path, "a = 5\nout = [a for a in (None, 2)]")
    assert isinstance(found, ListValue) and found.items == (None, 2)


STORED_AGAIN = (
    "import dataclasses\n"
    "@dataclasses.dataclass{frozen}\n"
    "class Config(Base):\n"
    "    shape: tuple = (4, 2)\n"
    "{post_init}"
    "def make():\n"
    "    cfg = Config((2, 2))\n"
    "{after}"
    "    return cfg\n"
    "out = make().shape\n"
)
SETTER = (
    "class Base:\n"
    "    def set(self, **kw):\n"
    "        for k, v in kw.items():\n"
    "            setattr(self, k, v)\n"
    "        return self\n"
)


@pytest.mark.parametrize(
    ("base", "frozen", "post_init", "after"),
    [
        # stored from outside the class after the construction
        ("", "", "", "    cfg.shape = (4, 2)\n"),
        # replaced by the class's own `__post_init__`
        ("", "", "    def __post_init__(self):\n        self.shape = (4, 2)\n", ""),
        # a frozen one's `__post_init__` through `object.__setattr__`
        (
            "",
            "(frozen=True)",
            "    def __post_init__(self):\n"
            '        object.__setattr__(self, "shape", (4, 2))\n',
            "",
        ),
        # a `setattr` loop of the class's base (axlearn's `ConfigBase.set`)
        (SETTER, "", "", "    cfg.set(shape=(4, 2))\n"),
    ],
)
def test_a_field_stored_again_is_not_the_constructions(
    tmp_path: Path, base: str, frozen: str, post_init: str, after: str
) -> None:
    source = (base or "class Base:\n    pass\n") + STORED_AGAIN.format(
        frozen=frozen, post_init=post_init, after=after
    )
    found = value(tmp_path, source)
    if (
        after
    ):  # stored by the function that builds it, before it escapes: what it stores
        assert found == (4, 2)
    else:
        assert isinstance(found, Unknown)
    kept = "class Base:\n    pass\n" + STORED_AGAIN.format(
        frozen=frozen, post_init="", after=""
    )
    assert value(tmp_path, kept) == (
        2,
        2,
    )  # the construction's, nothing storing it again


def test_an_attribute_init_assigns_that_a_setattr_may_set_is_unknown(
    tmp_path: Path,
) -> None:
    source = (
        SETTER + "class Config(Base):\n"
        "    def __init__(self, shape):\n"
        "        self.shape = shape\n"
        "cfg = Config((2, 2))\n"
        "cfg.set(shape=(4, 2))\n"
        "out = cfg.shape\n"
    )
    assert isinstance(value(tmp_path, source), Unknown)
    # every call of the loop's function gives other keys: it never sets `shape`
    other_keys = source.replace("cfg.set(shape=(4, 2))", 'cfg.set(name="tiny")')
    assert value(tmp_path, other_keys) == (2, 2)


def test_a_setattr_in_a_method_of_another_class_sets_only_its_objects(
    tmp_path: Path,
) -> None:
    source = (
        SETTER + "class Config:\n"
        "    def __init__(self, shape):\n"
        "        self.shape = shape\n"
        "cfg = Config((2, 2))\n"
        "Base().set(shape=(4, 2))\n"
        "out = cfg.shape\n"
    )
    assert value(tmp_path, source) == (2, 2)
    # an object of a subclass of the setattr's class may be set
    derived = source.replace("class Config:", "class Config(Base):")
    assert isinstance(value(tmp_path, derived), Unknown)


KWARGS_LOOP = (
    "class Base:\n"
    "    def __init__(self, shape=(1, 1), **kwargs):\n"
    "        self.shape = shape\n"
    "        self.mode = 'train'\n"
    "        for k, v in kwargs.items():\n"
    "            setattr(self, k, v)\n"
    "class Config(Base):\n"
    "    def __init__(self, hidden=8, **kwargs):\n"
    "        super().__init__(**kwargs)\n"
    "        self.hidden = hidden\n"
    "cfg = Config({given})\n"
    "out = cfg.{read}\n"
)


@pytest.mark.parametrize(
    ("given", "read", "expected"),
    [
        # a keyword naming the base's parameter binds it, never its `**kwargs`
        ("hidden=4, shape=(2, 2)", "shape", (2, 2)),
        ("hidden=4, shape=(2, 2)", "mode", "train"),
        # forwarded by `super().__init__(**kwargs)`: the loop sets it
        ("hidden=4, mode='eval'", "mode", Unknown),
    ],
)
def test_a_setattr_loop_gets_the_keys_a_subclass_forwards(
    tmp_path: Path, given: str, read: str, expected: object
) -> None:
    found = value(tmp_path, KWARGS_LOOP.format(given=given, read=read))
    if expected is Unknown:
        assert isinstance(found, Unknown), found
    else:
        assert found == expected


FLUENT = (
    "class Model:\n"
    "    def __init__(self):\n"
    "        self.shape = (1, 1)\n"
    "    def resize(self):\n"
    "        self.shape = (2, self.shape[1] * 4)\n"
    "        return self\n"
    "m = Model().resize()\n"
    "{more}"
    "out = m.shape\n"
)


def test_a_method_returning_its_object_gives_what_it_stores(tmp_path: Path) -> None:
    # the body's store, evaluated on the object as it was
    assert value(tmp_path, FLUENT.format(more="")) == (2, 4)
    # called twice in the project: which call's stores hold is not followed
    twice = FLUENT.format(more="other = Model().resize()\n")
    assert isinstance(value(tmp_path, twice), Unknown)
    # another method may store it again
    again = FLUENT.replace(
        "    def resize(self):",
        "    def reset(self):\n        self.shape = (1, 1)\n    def resize(self):",
    ).format(more="")
    assert isinstance(value(tmp_path, again), Unknown)
