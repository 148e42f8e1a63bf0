"""What the `ast` engine says an expression is: arithmetic, unpacking, names rebound, calls
followed with their arguments, class constants, a read before later bindings; JAX calls'
arguments by parameter name and jit applications (ported from the LibCST engine's
tests/test_contexts.py: the same programs, the same questions; where the new engine knows
more, the comment says so)."""

from __future__ import annotations

import ast

import pytest

from ast_programs import last_expr, last_value, parsed
from jaxfix.analysis.ast_engine import evaluate, pytrees
from jaxfix.analysis.ast_engine.analysis import bind_arguments
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import (
    Array,
    DictValue,
    External,
    Function,
    Leaves,
    ListValue,
    Mesh,
    NotDefined,
    ShapeStruct,
    Sharding,
    Unknown,
)
from jaxfix.analysis.names import SIGNATURES, Api

HEADER = """\
import contextlib
import unittest
import jax
from jax.sharding import AbstractMesh, Mesh, use_abstract_mesh
M8 = AbstractMesh((8,), ("x",))
"""


@pytest.mark.parametrize(
    "code, value",
    [
        ("v = 8 * 4 - 2 // 1", 30),
        ("A = 2\nv = (A, -A, 'x')", (2, -2, "x")),
        ("v = ('x',) * 3", ("x", "x", "x")),
        # a key given again keeps its first place and takes the last value, as in Python
        ("d = {'x': 2, 'y': 4, 'x': 8}\nv = tuple(d.values())", (8, 4)),
        ("d = dict({'x': 2, 'y': 4}, y=8)\nv = (tuple(d), len(d))", (("x", "y"), 2)),
        ("d = {'x': 2} | {'y': 4, 'x': 1}\nv = tuple(d.items())", (("x", 1), ("y", 4))),
        ("v = None", None),
        # true division gives a float, and int() of one goes toward zero
        ("v = (int(8 / -2), 8 / 4, 3 * 0.5)", (-4, 2.0, 1.5)),
        ("v = 8 / 0", Unknown),
        ("v = ([1, -1, 2].index(-1), (4, -1).count(-1))", (1, 1)),
        ("v = [1, 2].index(-1)", Unknown),
        # a list changed by item stores this frame runs, read after them
        (
            "def fill(vals, n):\n    if -1 in vals:\n        vals[vals.index(-1)] = n // 2"
            "\n    return tuple(vals)\nv = (fill([-1, 2], 8), fill([4, 2], 8))",
            ((4, 2), (4, 2)),
        ),
        # ... not where another name may hold the list before a store
        (
            "def widen(vals):\n    kept = vals\n    vals[0] = 8\n    return kept\n"
            "v = widen([2, 2])",
            Unknown,
        ),
        # ... nor where the function's decorator reads the name (of the scope around it)
        (
            "def keep(x):\n    def wrap(f):\n        return f\n    return wrap\nvals = [1]\n"
            "@keep(vals)\ndef fill(vals):\n    vals[0] = 4\n    return tuple(vals)\n"
            "v = fill([2, 2])",
            Unknown,
        ),
        # ... nor where the store runs in a loop
        (
            "def fill(vals):\n    for i in range(2):\n        vals[i] = 4\n    return vals\n"
            "v = fill([1, 2])",
            Unknown,
        ),
        # min/max of their arguments, as of an iterable
        ("v = (max(1, 8 // 4), min(4, 2, 3), max([1, 5]))", (2, 2, 5)),
        ("v = max(1, jax.device_count() // 4)", Unknown),
        ("def f(n):\n    return n\nv = n", Unknown),
        ("v = (*rest, 2)", Unknown),
        # `*C` binds a list, which the tuple then holds: it may be changed through it (the
        # LibCST engine answered (3, 4), a tuple)
        ("A, (B, *C) = 1, (2, 3, 4)\nv = (A, B)", (1, 2)),
        ("A, B = SIZES\nv = A", Unknown),
        ("A = B = 8\nv = A * B", 64),
        ("A = 4\nA *= 2\nA += 1\nv = A", 9),
        ("A = 4\nA = A * 2\nv = A", 8),  # the read of A in `A * 2` sees `A = 4` only
        ("if c:\n    A = 8\nelse:\n    A = 8\nv = A", 8),
        # a loop variable: the one value every item gives
        ("for A in (8, 8):\n    pass\nv = A", 8),
        ("for A in (8, 16):\n    pass\nv = A", Unknown),
        ("for A in ():\n    pass\nv = A", Unknown),
        ("for A in (8, 8):\n    A = A + 1\nv = A", 9),  # the body's binding, after it
        ("for A, B in ((8, 2), (8, 4)):\n    pass\nv = A", 8),
        # what a generator of the tree yields, by next() and a loop over it
        ("def g():\n    while True:\n        yield 8\nv = next(g())", 8),
        ("def g():\n    yield 8\n    yield 16\nv = next(g())", Unknown),
        (
            "def g():\n    yield {'a': 8}\ndef h(it):\n    for d in it:\n        yield d['a']\n"
            "v = next(h(g()))",
            8,
        ),
        ("def g():\n    yield from (8, 8)\nv = next(g())", Unknown),
        ("def f(a, b=2):\n    c = a * b\n    return c\nv = f(3)", 6),
        # falls off its end: None (the LibCST engine did not know)
        ("def f(a):\n    if a:\n        return 1\nv = f(0)", None),
        # may fall off its end
        ("def f(a):\n    if a:\n        return 1\nv = f(x)", Unknown),
        # an `if` on a parameter the call gives runs one branch; a raising guard ends its path
        ("def f(a):\n    if a:\n        return 1\nv = f(3)", 1),
        (
            "def f(a, b=None):\n    if not a:\n        raise E\n    if b is None:\n        return 2\n    return 3\nv = f(True)",
            2,
        ),
        (
            "def f(a, b=None):\n    if b is not None:\n        return 3\n    else:\n        return 2\nv = f(1, b=(4,))",
            3,
        ),
        (
            "def f(a, o=False):\n    if g():\n        raise E\n    if o:\n        return 1\n    else:\n        return 2\nv = f(1)",
            2,
        ),
        # its returns differ
        ("def f(a):\n    if g(a):\n        return 1\n    return 2\nv = f(1)", Unknown),
        # `a` is bound twice, after the `if` that returns: flow-sensitive, the new engine
        # knows it is 1 (the LibCST engine did not)
        (
            "def f(a):\n    if a:\n        return 1\n    a = 0\n    return 2\nv = f(1)",
            1,
        ),
        ("def f(a):\n    for x in a:\n        return 1\n    return 1\nv = f(y)", 1),
        # may fall off its end
        (
            "def f(a):\n    try:\n        return 1\n    except E:\n        pass\nv = f(y)",
            Unknown,
        ),
        # The LibCST engine followed one level of calls; the new one follows a few
        ("def f(a):\n    return g(a)\ndef g(a):\n    return a\nv = f(3)", 3),
        # ... and `*args` (the LibCST engine did not)
        ("def f(*a):\n    return 1\nv = f(3)", 1),
        ("class C:\n    X = 3\nclass D(C):\n    pass\nv = D.X", 3),
        ("v = (len(('a', 'b')), 2 ** 5, 7 % 4, (1,) + (2,))", (2, 32, 3, (1, 2))),
        ("B = (1,)\nv = (*B, *B)", (1, 1)),
        # a dataclass object's field is its own value, never the class's default
        (
            "import dataclasses\n@dataclasses.dataclass\nclass C:\n    a: int = 1\n    b: int = 2\nv = (C(5).a, C(b=7).b, C().a)",
            (5, 7, 1),
        ),
        (
            "import typing\nclass T(typing.NamedTuple):\n    a: int\n    b: int = 2\nv = (T(5).a, T(1, b=7).b, T(4).b)",
            (5, 7, 2),
        ),
        # a base dataclass's fields come first, a subclass's default wins; a base outside
        # the tree may add fields, so positional arguments are not placed
        (
            "import dataclasses\n@dataclasses.dataclass\nclass B:\n    data: int = 4\n    model: int = 9\n@dataclasses.dataclass\nclass C(B):\n    model: int = 2\nv = (C(8).data, C(8).model, C(model=3).data)",
            (8, 2, 4),
        ),
        (
            "import dataclasses\n@dataclasses.dataclass\nclass C(Base):\n    model: int = 2\nv = C(8).model",
            Unknown,
        ),
        (
            "import dataclasses\n@dataclasses.dataclass\nclass C(Base):\n    model: int = 2\nv = C(model=8).model",
            8,
        ),
        # a dict given to a jitted function's `.lower`/`.trace`, `jax.eval_shape` or
        # `jax.tree.map` is only read; given to a function of the tree, it may be changed
        ("d = {'a': 1}\njax.jit(f).lower(d)\njax.eval_shape(f, d)\nv = d['a']", 1),
        ("d = {'a': 1}\njax.jit(f).trace(d).lower()\nv = d['a']", 1),
        ("def trace(x):\n    x['a'] = 2\nd = {'a': 1}\ntrace(d)\nv = d['a']", Unknown),
        # `jax.grad(f)(d)` traces `f` with a tree rebuilt from `d`'s leaves: `d` is only read
        (
            "def f(x):\n    x['a'] = 2\nd = {'a': 1}\njax.value_and_grad(f)(d)\njax.grad(f)(d)\nv = d['a']",
            1,
        ),
        ("def f(x):\n    x['a'] = 2\nd = {'a': 1}\nmake(f)(d)\nv = d['a']", Unknown),
        # a static method is given no receiver, a class method its class, through the class
        # or an object of it
        (
            "class M:\n    @staticmethod\n    def f(n, k=2):\n        return n * k\nv = M().f(4)",
            8,
        ),
        (
            "class M:\n    @staticmethod\n    def f(n, k=2):\n        return n * k\nv = M.f(4, 3)",
            12,
        ),
        (
            "class M:\n    N = 8\n    @classmethod\n    def f(cls, k):\n        return cls.N * k\nv = (M.f(2), M().f(3))",
            (16, 24),
        ),
        (
            "class M:\n    @staticmethod\n    @jax.jit\n    def f(x):\n        return x\nv = M.f(2)",
            Unknown,  # a jitted static method stays jitted
        ),
        # enumerate of spelled-out items, from 0 or a given start
        ("v = enumerate(('a', 'b'))", ((0, "a"), (1, "b"))),
        ("v = list(enumerate(('a', 'b'), 3))", ListValue(((3, "a"), (4, "b")))),
        ("v = enumerate(unknown_items)", Unknown),
    ],
)
def test_value_of(code: str, value: object) -> None:
    engine, module = parsed(HEADER + code)
    found = engine.value_of(module, last_expr(module))
    assert isinstance(found, Unknown) if value is Unknown else found == value, found


@pytest.mark.parametrize(
    "call, value",
    [
        ("M.f(('x',), 8)", 8),
        ("M().f(('x',), 8)", 8),
        ("M.g(8)", 8),  # a class method: `cls` is the class
    ],
)
def test_a_static_or_class_methods_parameter_from_its_callers(
    call: str, value: object
) -> None:
    """The callers' arguments bind a static method's parameters from the first (no receiver),
    a class method's after `cls`."""
    engine, module = parsed(
        "class M:\n"
        "    @staticmethod\n"
        "    def f(names, n):\n"
        "        return n\n"
        "    @classmethod\n"
        "    def g(cls, n):\n"
        "        return n\n"
        f"{call}\n"
    )
    function = "g" if ".g(" in call else "f"
    (read,) = [
        n.value
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Return)
        and any(
            isinstance(f, ast.FunctionDef) and f.name == function and n in ast.walk(f)
            for f in ast.walk(module.tree)
        )
    ]
    assert engine.value_of(module, read) == value


def test_an_operation_on_an_unknown_value_says_where_it_was_lost() -> None:
    """`max(1, jax.device_count() // 4)`: unknown because the device count is, not because of
    the operation or of `max`."""
    engine, module = parsed(HEADER + "v = max(1, jax.device_count() // 4)")
    found = engine.value_of(module, last_expr(module))
    assert isinstance(found, Unknown) and "jax.device_count" in found.why, found


def test_a_starred_target_is_a_list_that_may_change() -> None:
    """`*C` binds a list; a tuple bound to a name holds it, and a change through that name
    (`v[2].append(5)`) changes it."""
    engine, module = parsed(
        "A, (B, *C) = 1, (2, 3, 4)\nv = (A, B, C)\nv[2].append(5)\nw = (A, B, C)"
    )
    found = engine.value_of(module, last_expr(module))
    assert isinstance(found, tuple) and found[:2] == (1, 2)
    assert isinstance(found[2], Unknown)


def test_a_list_held_by_a_tuple_only_read_is_known() -> None:
    """The tuple's name only read (passed as `*args`, returned): the list it holds is known."""
    engine, module = parsed(
        "A, (B, *C) = 1, (2, 3, 4)\nv = (A, B, C)\nprint(*v)\nw = (A, B, C)"
    )
    found = engine.value_of(module, last_expr(module))
    assert found == (1, 2, ListValue((3, 4))), found


@pytest.mark.parametrize(
    "code, value",
    [
        ("A = 4\nv = A\nA *= 2", 4),  # a binding after the read does not reach it
        ("A = 4\nA *= 2\nv = A\nA += 1", 8),
        # read when called: after `A *= 2`, maybe
        ("A = 4\nv = lambda: A\nA *= 2", Unknown),
        (
            "A = 4\nv = (A for _ in range(2))\nA *= 2",
            Unknown,
        ),  # a generator reads later
        (
            "A = 4\nv = tuple(A for _ in range(2))\nA *= 2",
            4,
        ),  # ... unless iterated at once
        ("A = 4\nv = (1 for _ in range(A))\nA *= 2", 4),  # its first iterable: at once
        # each pass binds A = 4 just before the read
        ("while c:\n    A = 4\n    v = A\n    A *= 2", 4),
        ("A = 4\nwhile c:\n    v = A\n    A *= 2", Unknown),  # a loop may read it again
    ],
)
def test_value_of_a_read_before_later_bindings(code: str, value: object) -> None:
    engine, module = parsed(code)
    (assign,) = [
        n
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id == "v"
    ]
    (read,) = [
        n
        for n in ast.walk(assign.value)
        if isinstance(n, ast.Name) and n.id == "A" and isinstance(n.ctx, ast.Load)
    ]
    found = engine.value_of(module, read)
    assert isinstance(found, Unknown) if value is Unknown else found == value, found


def test_value_of_a_mesh_keeps_unknown_sizes_per_axis() -> None:
    engine, module = parsed(HEADER + "v = AbstractMesh((n, 4), ('a', 'b'))")
    mesh = engine.value_of(module, last_expr(module))
    assert isinstance(mesh, Mesh) and mesh.is_abstract
    assert mesh.axis_sizes == (None, 4) and mesh.size is None


def _call(text: str) -> ast.Call:
    found = ast.parse(text, mode="eval").body
    assert isinstance(found, ast.Call)
    return found


def test_bind_follows_the_signature_table() -> None:
    sharding = SIGNATURES[Api.NAMED_SHARDING]
    bound = bind_arguments(
        _call("NamedSharding(mesh, spec=P('x'), memory_kind=None)"), sharding
    )
    assert bound is not None and set(bound) == {"mesh", "spec", "memory_kind"}
    assert bind_arguments(_call("NamedSharding(m, s, extra)"), sharding) is None
    assert bind_arguments(_call("NamedSharding(*args)"), sharding) is None
    # positional-only
    assert bind_arguments(_call("jit(fun=f)"), SIGNATURES[Api.JIT]) is None
    assert bind_arguments(_call("NamedSharding(m, mesh=m)"), sharding) is None


def test_jit_application_in_every_form() -> None:
    """What `jax.jit` applied or partially applied evaluates to. (The LibCST engine's
    `jit_application` also gave the keywords, `static_argnums=0`; the new engine's values
    do not carry them: a rule reads them from the call, `Analysis.bind`.)"""
    engine, module = parsed(
        """
import functools
import jax
def f(x):
    return x
a = jax.jit(f, static_argnums=0)
b = functools.partial(jax.jit, static_argnames="n")
c = jax.jit
d = jax.jit(donate_argnums=0)
e = functools.partial(jax.jit, 1)
"""
    )
    values = [
        engine.value_of(module, s.value)
        for s in module.tree.body
        if isinstance(s, ast.Assign)
    ]
    a, b, c, d, e = values
    assert isinstance(a, Function) and a.wrapped_by == "jit" and a.node.name == "f"
    assert b == c == d == External("jax.jit")  # jit still to be applied to a function
    assert isinstance(e, Unknown)


TREES = """\
import jax
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P
M = AbstractMesh((8,), ("x",))
S = jax.eval_shape(init)
"""


@pytest.mark.parametrize(
    "code, leaf",
    [
        # every leaf of eval_shape's structs mapped to a struct on one sharding
        (
            "v = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=NamedSharding(M, P())), S)",
            "sharded",
        ),
        # a tree of shardings, then structs given them leaf by leaf (two trees)
        (
            "SH = jax.tree_util.tree_map(lambda _: NamedSharding(M, P()), S)\n"
            "v = jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), S, SH)",
            "sharded",
        ),
        # the sharding depends on the leaf: unknown
        (
            "v = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding), S)",
            "unknown sharding",
        ),
        # a tree jaxfix does not spell out (not eval_shape's, not mapped from it): whatever its
        # leaves, each becomes a struct on the one sharding the function gives
        (
            "v = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=NamedSharding(M, P())), params)",
            "sharded",
        ),
        # ... and with an is_leaf= jaxfix cannot answer (t5x's PartitionSpec leaves)
        (
            "v = jax.tree.map(lambda spec: jax.ShapeDtypeStruct((8,), None, sharding=NamedSharding(M, spec)), params, is_leaf=lambda x: isinstance(x, P))",
            "sharded",
        ),
        # over such a tree, a sharding that depends on the leaf: unknown
        (
            "v = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding), params)",
            Unknown,
        ),
        (
            "v = jax.tree.map(lambda m: jax.ShapeDtypeStruct((8,), None, sharding=NamedSharding(m, P())), meshes)",
            Unknown,
        ),
        # the leaf itself: a tree of leaves jaxfix does not know (still eval_shape's tree)
        ("v = jax.tree.map(lambda x: x, S)", "unknown leaf"),
    ],
)
def test_tree_map_of_eval_shape_structs(code: str, leaf: object) -> None:
    engine, module = parsed(TREES + code)
    found = engine.value_of(module, last_expr(module))
    if leaf is Unknown:
        assert isinstance(found, Unknown), found
        return
    if leaf == "unknown leaf":
        assert isinstance(found, Leaves) and isinstance(found.leaf, Unknown), found
        return
    assert isinstance(found, Leaves) and isinstance(found.leaf, ShapeStruct), found
    sharding = found.leaf.sharding
    if leaf == "sharded":
        mesh = sharding.mesh if isinstance(sharding, Sharding) else None
        assert isinstance(mesh, Mesh) and mesh.is_abstract and mesh.axis_sizes == (8,)
    else:
        assert isinstance(sharding, Unknown)


SPELLED = """\
import jax
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P
M = AbstractMesh((8,), ("x",))
A = jax.ShapeDtypeStruct((8,), None)
"""
ON_M = "jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=NamedSharding(M, P()))"


def _on_m(value: object) -> bool:
    return (
        isinstance(value, ShapeStruct)
        and isinstance(value.sharding, Sharding)
        and isinstance(value.sharding.mesh, Mesh)
        and value.sharding.mesh.axis_sizes == (8,)
    )


@pytest.mark.parametrize(
    "code, shape",
    [
        # the containers the code spells out, rebuilt with what the function gives each leaf
        (f"v = jax.tree.map(lambda x: {ON_M}, {{'w': A, 'b': A}})", "dict"),
        (f"v = jax.tree.map(lambda x: {ON_M}, (A, [A, A]))", "tuple"),
        # None is an empty subtree: it stays None, the function never sees it
        (f"v = jax.tree.map(lambda x: {ON_M}, (A, None))", "tuple with None"),
        # specs are leaves: shardings from a dict of specs, then structs given them
        (
            "SH = jax.tree.map(lambda p: NamedSharding(M, p), {'w': P('x'), 'b': P()})\n"
            "v = jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), {'w': A, 'b': A}, SH)",
            "dict",
        ),
        # with each leaf's key path first
        (
            "v = jax.tree.map_with_path(lambda path, x: "
            + ON_M.replace("x.shape", "x.shape")
            + ", {'w': A, 'b': A})",
            "dict",
        ),
        (
            "v = jax.tree_util.tree_map_with_path(lambda path, x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), {'w': A, 'b': A}, {'w': NamedSharding(M, P()), 'b': NamedSharding(M, P('x'))})",
            "dict",
        ),
        # a subtree jaxfix does not know, trees of other keys or lengths, is_leaf=
        (
            f"v = jax.tree.map(lambda x: {ON_M}, {{'w': A, 'b': params}})",
            "unknown item",
        ),
        (
            "v = jax.tree.map(lambda x, s: x, {'w': A}, {'b': A})",
            Unknown,
        ),
        ("v = jax.tree.map(lambda x, s: x, (A, A), (A,))", Unknown),
        (f"v = jax.tree.map(lambda x: {ON_M}, {{'w': A}}, is_leaf=f)", Unknown),
    ],
)
def test_tree_map_over_containers_the_code_spells_out(code: str, shape: object) -> None:
    engine, module = parsed(SPELLED + code)
    found = engine.value_of(module, last_expr(module))
    if shape is Unknown:
        assert isinstance(found, Unknown), found
    elif shape == "dict":
        assert isinstance(found, DictValue), found
        assert [k for k, _ in found.items] == ["w", "b"]
        assert all(_on_m(v) for _, v in found.items), found
    elif shape == "tuple":
        assert isinstance(found, tuple) and _on_m(found[0]), found
        assert isinstance(found[1], ListValue) and all(map(_on_m, found[1].items))
    elif shape == "tuple with None":
        assert isinstance(found, tuple) and _on_m(found[0]) and found[1] is None
    else:
        assert isinstance(found, DictValue) and _on_m(found.items[0][1]), found
        # a subtree jaxfix does not know: whatever its leaves, the function puts each on M
        unknown = found.items[1][1]
        assert isinstance(unknown, Leaves) and _on_m(unknown.leaf), unknown


@pytest.mark.parametrize(
    "code, length",
    [
        ("v = [A] * 3", 3),
        ("v = 2 * [A, A]", 4),
        ("v = [A] * n", None),
    ],
)
def test_a_list_repeated(code: str, length: int | None) -> None:
    engine, module = parsed(SPELLED + code)
    found = engine.value_of(module, last_expr(module))
    if length is None:
        assert isinstance(found, Unknown), found
    else:
        assert isinstance(found, ListValue) and len(found.items) == length


@pytest.mark.parametrize(
    "code",
    [
        "v = jax.make_array_from_callback((8,), NamedSharding(M, P('x')), cb)",
        "v = jax.make_array_from_single_device_arrays((8,), NamedSharding(M, P('x')), arrays)",
        "v = jax.make_array_from_process_local_data(NamedSharding(M, P('x')), data)",
        "v = jax.make_array_from_process_local_data(sharding=NamedSharding(M, P('x')), local_data=data)",
    ],
)
def test_arrays_made_on_a_sharding_are_placed_on_it(code: str) -> None:
    engine, module = parsed(
        TREES.replace("AbstractMesh((8,)", "jax.make_mesh((8,)") + code
    )
    found = engine.value_of(module, last_expr(module))
    assert isinstance(found, Array) and isinstance(found.sharding, Sharding), found
    assert isinstance(found.sharding.mesh, Mesh) and found.sharding.mesh.axis_sizes == (
        8,
    )


DATACLASSES = """\
import dataclasses
import jax
import flax.struct
"""


@pytest.mark.parametrize(
    "code, children",
    [
        (
            "@jax.tree_util.register_dataclass\n@dataclasses.dataclass\nclass S:\n    a: int\n    b: int\nv = S(1, b=2)",
            (1, 2),
        ),
        (
            "@flax.struct.dataclass\nclass S:\n    a: int\n    b: int = 3\nv = S(1)",
            (1, 3),
        ),
        # not registered: not a pytree JAX traces
        ("@dataclasses.dataclass\nclass S:\n    a: int\nv = S(1)", None),
        # a field(...) may be static (metadata, pytree_node=False): jaxfix does not read it
        (
            "@jax.tree_util.register_dataclass\n@dataclasses.dataclass\nclass S:\n    a: int\n    b: int = dataclasses.field(default=2, metadata=dict(static=True))\nv = S(1)",
            None,
        ),
        (
            "@flax.struct.dataclass\nclass S:\n    a: int\n    b: int = flax.struct.field(pytree_node=False, default=2)\nv = S(1)",
            None,
        ),
        # a named tuple is a tuple: its fields, defaults filled in
        (
            "import typing\nclass S(typing.NamedTuple):\n    a: int\n    b: int = 3\nv = S(1)",
            (1, 3),
        ),
        # registered by a call at the top of the class's module
        (
            "@dataclasses.dataclass\nclass S:\n    a: int\n    b: int\njax.tree_util.register_dataclass(S)\nv = S(1, 2)",
            (1, 2),
        ),
        (
            "@dataclasses.dataclass\nclass S:\n    a: int\n    b: int\n    c: int\njax.tree_util.register_dataclass(S, data_fields=['c', 'a'], meta_fields=['b'])\nv = S(1, 2, 3)",
            (3, 1),
        ),
        (
            "class S:\n    def __init__(self, a, b):\n        self.a = a\n        self.b = b\njax.tree_util.register_pytree_node(S, lambda s: ((s.a,), s.b), lambda aux, c: S(c[0], aux))\nv = S(1, 2)",
            (1,),
        ),
        (
            "class S:\n    def __init__(self, a, b):\n        self.a = a\n        self.b = b\ndef flatten(s):\n    return [(K('a'), s.a), (K('b'), s.b)], None\njax.tree_util.register_pytree_with_keys(S, flatten, lambda aux, c: S(*c))\nv = S(1, 2)",
            (1, 2),
        ),
        # a decorated class flattened by its own method (keyed: tree_flatten when it has one)
        (
            "@jax.tree_util.register_pytree_node_class\nclass S:\n    def __init__(self, a, b=5):\n        self.a = a\n        self.b = b\n    def tree_flatten(self):\n        children = (self.b, self.a)\n        return children, None\nv = S(1)",
            (5, 1),
        ),
        (
            "@jax.tree_util.register_pytree_with_keys_class\n@dataclasses.dataclass\nclass S:\n    a: int\n    b: int\n    def tree_flatten_with_keys(self):\n        return ((K('a'), self.a),), self.b\nv = S(1, 2)",
            (1,),
        ),
        (
            "@jax.tree_util.register_pytree_with_keys_class\n@dataclasses.dataclass\nclass S:\n    a: int\n    b: int\n    def tree_flatten_with_keys(self):\n        return ((K('a'), self.a),), self.b\n    def tree_flatten(self):\n        return (self.b,), self.a\nv = S(1, 2)",
            (2,),
        ),
        # registered static, by the decorator or the call: a node with no children
        (
            "@jax.tree_util.register_static\n@dataclasses.dataclass(frozen=True)\nclass S:\n    a: int\nv = S(1)",
            (),
        ),
        (
            "@dataclasses.dataclass(frozen=True)\nclass S:\n    a: int\njax.tree_util.register_static(S)\nv = S(1)",
            (),
        ),
        # what jaxfix does not follow: a flatten it cannot see, a registration elsewhere, a
        # method of a base outside the tree, children of another kind than a sequence
        (
            "class S:\n    def __init__(self, a):\n        self.a = a\njax.tree_util.register_pytree_node(S, flatten, unflatten)\nv = S(1)",
            None,
        ),
        (
            "class S:\n    def __init__(self, a):\n        self.a = a\nif True:\n    jax.tree_util.register_pytree_node(S, lambda s: ((s.a,), None), None)\nv = S(1)",
            None,
        ),
        (
            "@jax.tree_util.register_pytree_node_class\nclass S(Base):\n    def __init__(self, a):\n        self.a = a\nv = S(1)",
            None,
        ),
        (
            "@jax.tree_util.register_pytree_node_class\nclass S:\n    def __init__(self, a):\n        self.a = a\n    def tree_flatten(self):\n        return {'a': self.a}, None\nv = S(1)",
            None,
        ),
        # registered twice: JAX refuses the second
        (
            "@jax.tree_util.register_pytree_node_class\nclass S:\n    def __init__(self, a):\n        self.a = a\n    def tree_flatten(self):\n        return (self.a,), None\njax.tree_util.register_pytree_node(S, lambda s: ((s.a,), None), None)\nv = S(1)",
            None,
        ),
    ],
)
def test_children_of_registered_dataclasses(code: str, children: object) -> None:
    engine, module = parsed(DATACLASSES + code)
    found = pytrees.children(
        engine.evaluator, engine.value_of(module, last_expr(module))
    )
    assert found == children


SETTER = """\
class Weight:
    def __init__(self, sizes):
        self._sizes = sizes

    @property
    def sizes(self):
        return self._sizes

    @sizes.setter
    def sizes(self, value):
        self._sizes = value

    def shape(self):
        return self._sizes


weight = Weight((4, 2))
"""

PROPERTY_CALL = """\
class Weight:
    def __init__(self, sizes):
        self._sizes = sizes

    def _get(self):
        return self._sizes

    def _set(self, value):
        self._sizes = value

    sizes = property(_get, _set)


weight = Weight((4, 2))
"""


@pytest.mark.parametrize("source", [SETTER, PROPERTY_CALL])
@pytest.mark.parametrize("read", ["weight.sizes", "weight._sizes"])
def test_a_property_whose_setter_nothing_calls_reads_its_getter(source, read):
    assert last_value(source + read + "\n") == (4, 2)


@pytest.mark.parametrize(
    ("source", "more", "why"),
    [
        (SETTER, "weight.sizes = (8,)\n", "`.sizes` is stored at"),
        (PROPERTY_CALL, "weight.sizes = (8,)\n", "`.sizes` is stored at"),
        (SETTER, "setattr(weight, 'sizes', (8,))\n", "`setattr`"),
        (PROPERTY_CALL, "weight._set((8,))\n", "also assigned by `_set`"),
    ],
)
@pytest.mark.parametrize("read", ["weight.sizes", "weight._sizes"])
def test_a_property_a_store_may_set_is_unknown(source, more, why, read):
    found = last_value(source + more + read + "\n")
    assert isinstance(found, Unknown) and why in found.why, found


@pytest.mark.parametrize(
    "code, expected",
    [
        # Python's classes and their abc/typing aliases, on data jaxfix spells out
        ("from collections.abc import Mapping\nisinstance({'a': 1}, Mapping)", True),
        ("from typing import Sequence\nisinstance([1, 2], Sequence)", True),
        ("isinstance((1, 2), (dict, list))", False),
        ("isinstance(None, tuple)", False),
        ("isinstance(True, int)", True),
        # an object of the tree may subclass dict: cannot tell
        ("class Shape(dict):\n    pass\nisinstance(Shape(a=1), dict)", Unknown),
        ("isinstance(x, dict)", Unknown),
    ],
)
def test_isinstance_of_pythons_classes(code: str, expected: object) -> None:
    found = last_value(code)
    if expected is Unknown:
        assert isinstance(found, Unknown), found
    else:
        assert found is expected, found


LEAVES = """\
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
m = jax.make_mesh((2, 4), ("x", "y"))
a = jax.device_put(np.ones(8), NamedSharding(m, P("x")))
class Box:
    pass
"""


@pytest.mark.parametrize(
    "code, count",
    [
        ("jax.tree.leaves({'b': a, 'a': (a, None, 3)})", 3),
        ("jax.tree_util.tree_leaves([a, [a]])", 2),
        ("jax.tree.leaves(None)", 0),
        # an object of the tree may be a registered node: not spelled out
        ("jax.tree.leaves({'a': Box()})", None),
        ("jax.tree.leaves(params)", None),
        ("jax.tree.leaves({'a': a}, is_leaf=lambda x: True)", None),
    ],
)
def test_tree_leaves(code: str, count: int | None) -> None:
    found = last_value(LEAVES + code)
    if count is None:
        assert isinstance(found, Unknown), found
    else:
        assert isinstance(found, ListValue) and len(found.items) == count, found


JITTED = """\
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
m = jax.make_mesh((8,), ("d",))
s = NamedSharding(m, P("d"))
def f(x):
    return x * 2
def g(x):
    return x, x + 1
"""


@pytest.mark.parametrize(
    "code, meshes",
    [
        # out_shardings place what the jitted function returns
        ("jax.jit(f, out_shardings=s)(np.ones(8))", ["d"]),
        ("jax.jit(g, out_shardings=s)(np.ones(8))", [("d",), ("d",)]),
        ("jax.jit(g, out_shardings=(None, s))(np.ones(8))", [None, ("d",)]),
        # none given, or a spec of the context mesh: not known
        ("jax.jit(f)(np.ones(8))", None),
        ("jax.jit(f, out_shardings=P('d'))(np.ones(8))", None),
        ("jax.jit(g, out_shardings=(s, s, s))(np.ones(8))", None),
    ],
)
def test_jit_out_shardings_place_the_result(code: str, meshes: object) -> None:
    found = last_value(JITTED + code)

    def axis_names(v: object) -> object:
        if isinstance(v, Array) and isinstance(v.sharding, Sharding):
            return v.sharding.mesh.axis_names
        return None

    if meshes is None:
        assert isinstance(found, Unknown), found
    elif meshes == ["d"]:
        assert axis_names(found) == ("d",), found
    else:
        assert isinstance(found, tuple) and [axis_names(v) for v in found] == meshes, (
            found
        )


@pytest.mark.parametrize(
    "code, known",
    [
        # a helper that binds its parameter anew leaves the caller's dict as it was
        (
            "def inner(m, names):\n    m = [m.get(a, 1) for a in names]\n    return tuple(m)\n"
            "def outer(m):\n    return inner(m, ('r', 'd'))\n"
            "d = {'d': 2}\nouter(d)\nd",
            True,
        ),
        # `m += [...]` extends the caller's list in place
        (
            "def pad(m):\n    m += [1]\n    return tuple(m)\nd = [8]\npad(d)\nd",
            False,
        ),
        # a lambda, and a class's own __init__, that only read it
        ("f = lambda t: t['a']\nd = {'a': 1}\nf(d)\nd", True),
        (
            "class L:\n    def __init__(self, w):\n        self.n = len(w)\nd = [1, 2]\nL(d)\nd",
            True,
        ),
        (
            "class L:\n    def __init__(self, w):\n        w.append(3)\nd = [1, 2]\nL(d)\nd",
            False,
        ),
    ],
)
def test_a_container_passed_to_a_reader_stays_known(code: str, known: bool) -> None:
    found = last_value(code)
    assert isinstance(found, (ListValue, DictValue)) is known, found


@pytest.mark.parametrize(
    "extra, value",
    [
        ("", 8),
        # a subclass may be `cls`, with its own N
        ("class S(M):\n    N = 4\n", Unknown),
    ],
)
def test_a_class_methods_cls_is_its_class_when_nothing_derives_from_it(
    extra: str, value: object
) -> None:
    engine, module = parsed(
        "class M:\n"
        "    N = 8\n"
        "    @classmethod\n"
        "    def f(cls):\n"
        "        return cls.N\n" + extra
    )
    (read,) = [n.value for n in ast.walk(module.tree) if isinstance(n, ast.Return)]
    found = engine.value_of(module, read)
    assert isinstance(found, Unknown) if value is Unknown else found == value, found


@pytest.mark.parametrize(
    "extra, value",
    [
        ("", 8),
        # another store of `.size`: which one a test reads depends on what ran
        ("    def setUp(self):\n        self.size = 2\n", Unknown),
        # a second setUpClass replaces the first: its store is gone
        ("    @classmethod\n    def setUpClass(cls):\n        pass\n", Unknown),
    ],
)
def test_what_set_up_class_stores_on_the_class_a_test_reads(
    extra: str, value: object
) -> None:
    """unittest runs `setUpClass` once before the class's tests: `self.size` in a test is
    what it stored on `cls`."""
    code = (
        "import unittest\n"
        "class T(unittest.TestCase):\n"
        "    @classmethod\n"
        "    def setUpClass(cls):\n"
        "        cls.size = 8\n"
        "    def test_size(self):\n"
        "        return self.size\n"
    )
    engine, module = parsed(code + extra)
    (read,) = [
        n.value
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Attribute)
    ]
    found = engine.value_of(module, read)
    assert isinstance(found, Unknown) if value is Unknown else found == value, found


@pytest.mark.parametrize(
    "code, value",
    [
        ("D = {'a': 4, 'b': 4}\nv = [x + 1 for k, x in D.items()]", 4),
        ("D = {'a': 4, 'b': 8}\nv = [x + 1 for k, x in D.items()]", Unknown),
        ("v = [x for x in SIZES]", Unknown),  # over values jaxfix does not spell out
        # the second generator's variable may depend on the first's
        ("v = [y for x in ((4,), (4,)) for y in x]", Unknown),
    ],
)
def test_a_comprehension_variable_read_outside_its_unrolling(
    code: str, value: object
) -> None:
    """The one value the first generator's variable takes for every item of the iterable."""
    engine, module = parsed(HEADER + code)
    (comprehension,) = [n for n in ast.walk(module.tree) if isinstance(n, ast.ListComp)]
    element = comprehension.elt
    read = element.left if isinstance(element, ast.BinOp) else element
    found = engine.value_of(module, read)
    assert isinstance(found, Unknown) if value is Unknown else found == value, found


@pytest.mark.parametrize(
    "rebinding, value",
    [
        ("", 4),
        ("def other():\n        nonlocal n\n        n = 8\n", 4),
        # a nested function may rebind it before `inner` runs: every binding counts
        ("def other():\n        nonlocal size\n        size = 8\n", Unknown),
    ],
)
def test_a_name_settled_before_a_nested_def_unless_declared_nonlocal(
    rebinding: str, value: object
) -> None:
    """A nested function reads what reaches its `def` of a name its enclosing function
    bound before it (the last binding, `size = 4`), unless a function declares that name
    `nonlocal`: then each of the enclosing function's bindings (8 or 4)."""
    engine, module = parsed(
        "def outer(n):\n"
        "    size = 8\n"
        "    size = 4\n"
        "    def inner():\n"
        "        return size\n"
        f"    {rebinding}"
        "    return inner\n"
    )
    (read,) = [
        n.value
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Return)
        and isinstance(n.value, ast.Name)
        and n.value.id == "size"
    ]
    found = engine.value_of(module, read)
    assert isinstance(found, Unknown) if value is Unknown else found == value, found


def test_each_iteration_of_the_loops_around_a_node_is_asked_on_its_own() -> None:
    """`iterations` spells out the loops around a node (an inner loop's items with the outer
    variables bound); inside `unrolled`, the loop variables read that iteration's values."""
    engine, module = parsed(
        "SHAPES = {'a': (8, 2), 'b': (2, 2)}\n"
        "for name, shape in SHAPES.items():\n"
        "    for k in (shape[0], 1):\n"
        "        v = (name, k)\n"
    )
    target = module.tree.body[-1].body[0].body[0].value
    evaluator = engine.evaluator
    iterations = evaluator.iterations(module, target)
    assert isinstance(iterations, list) and len(iterations) == 4
    seen = []
    for bound in iterations:
        with evaluator.unrolled(bound):
            seen.append(engine.value_of(module, target))
    assert seen == [("a", 8), ("a", 1), ("b", 2), ("b", 1)]
    # outside an iteration, each variable is what every item gives: here not known
    outside = engine.value_of(module, target)
    assert isinstance(outside, tuple) and all(isinstance(v, Unknown) for v in outside)
    assert evaluator.iterations(module, module.tree.body[0].value) is None
    engine, module = parsed("for m in unknown_meshes:\n    v = m\n")
    assert isinstance(
        engine.evaluator.iterations(module, module.tree.body[-1].body[0].value), Unknown
    )


def test_on_a_host_of_n_devices_the_device_count_is_n() -> None:
    """`on_host(n)`: `jax.device_count()` and `jax.devices()` are those of n devices, through
    a function's return too (a call's answer is kept per host); the local ones stay unknown;
    outside, the count is unknown again."""
    engine, module = parsed(
        "import jax\n"
        "import numpy as np\n"
        "from jax.sharding import AbstractMesh, Mesh\n"
        "def outer():\n"
        "    return jax.make_mesh((jax.device_count(),), ('data',))\n"
        "v = (outer().axis_sizes, AbstractMesh((jax.device_count() // 2, 2), ('a', 'b'))"
        ".axis_sizes, len(jax.devices()), jax.local_device_count(),"
        " Mesh(np.asarray(jax.devices()).reshape(-1, 4), ('x', 'y')).axis_sizes)\n"
        "v\n"
    )
    expr = last_expr(module)
    evaluator = engine.evaluator
    with evaluator.on_host(8):
        found = engine.value_of(module, expr)
    assert isinstance(found, tuple)
    assert found[:3] == ((8,), (4, 2), 8) and found[4] == (2, 4)
    assert isinstance(found[3], Unknown)
    with evaluator.on_host(3):
        found = engine.value_of(module, expr)
    assert isinstance(found, tuple) and found[:3] == ((3,), (1, 2), 3)
    outside = engine.value_of(module, expr)
    assert isinstance(outside, tuple)
    assert isinstance(outside[0][0], Unknown) and isinstance(outside[2], Unknown)


_PARTITIONER = """\
class Partitioner:
    def compile(self, partitioned, *args):
        return partitioned.lower(*args).compile()
"""


@pytest.mark.parametrize(
    "calls, lowered",
    [
        ("a.lower(1)", "f"),  # the one object the method is called on
        ("a.lower(1)\na.lower(2)", "f"),
        ("a.lower(1)\nb.lower(2)", None),  # two objects, built with different functions
        ("a.lower(1)\nunknown.lower(2)", None),  # an object jaxfix does not see built
        # through a method whose own body reads `compile` on what the object lowers
        ("Partitioner().compile(a, 1)", "f"),
        ("Partitioner().compile(a, 1)\nPartitioner().compile(b, 2)", None),
    ],
)
def test_a_methods_self_is_the_object_its_callers_call_it_on(
    calls: str, lowered: str | None
) -> None:
    """`self._jitted` in a method: the field of the one object every call of the method is
    made on, as the factory call that built it gave it (not joined over every call of the
    factory, which passes different functions); the method's own `self._jitted.lower(...)`
    is JAX's `lower`, not a call of itself, and neither is `partitioned.lower(x).compile()`
    in `def compile`, with `partitioned` what the callers of `compile` pass."""
    engine, module = parsed(
        HEADER + "class Wrapper:\n"
        "    def __init__(self, jitted):\n"
        "        self._jitted = jitted\n"
        "    def lower(self, *args):\n"
        "        return self._jitted.lower(*args)\n"
        + (_PARTITIONER if "Partitioner" in calls else "")
        + "def partition(fn):\n"
        "    return Wrapper(jax.jit(fn))\n"
        "def f(x):\n"
        "    return x\n"
        "def g(x):\n"
        "    return x + 1\n"
        "a = partition(f)\n"
        "b = partition(g)\n"
        f"{calls}\n"
    )
    (read,) = [
        n.func.value
        for n in ast.walk(module.tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Attribute)
        and n.func.value.attr == "_jitted"
    ]
    found = engine.value_of(module, read)
    if lowered is None:
        assert isinstance(found, Unknown), found
    else:
        assert isinstance(found, Function) and found.wrapped_by == "jit", found
        assert getattr(found.node, "name", None) == lowered


_LOADED = """\
import json
import math
import numpy as np
cfg = json.load(open("config.json"))
shape = cfg["shape"]
"""


@pytest.mark.parametrize(
    "call, why",
    [
        ("np.array(shape)", "`numpy.array(...)` of "),
        ("tuple(np.array(shape))", "`tuple(...)` of `numpy.array(...)` of "),
        ("int(shape[0])", "`int(...)` of "),
        ("np.prod(np.array(shape))", "`numpy.prod(...)` of `numpy.array(...)` of "),
        ("math.prod((2, int(shape[0])))", "`math.prod(...)` of `int(...)` of "),
        ("len(list(shape))", "`len(...)` of `list(...)` of "),
    ],
)
def test_a_conversion_of_an_unknown_value_keeps_where_it_was_lost(
    call: str, why: str
) -> None:
    """`np.array(x)`, `int(x)`, `math.prod(x)` of a value jaxfix does not know: the trail
    ends where `x` was lost (the `json.load` of line 4), saying why, not at the call."""
    found = last_value(_LOADED + f"v = {call}\n")
    assert isinstance(found, Unknown), found
    assert found.why == why + "a call of `json.load`", found
    assert found.where is not None and found.where[1] == 4, found.where


def test_an_item_of_a_value_from_outside_keeps_where_it_was_lost() -> None:
    """`args.sizes[0]` of argparse's namespace: the trail ends where `args` was made."""
    found = last_value(
        "import argparse\n"
        "args = argparse.ArgumentParser().parse_args()\n"
        "v = int(args.sizes[0])\n"
    )
    assert isinstance(found, Unknown), found
    assert found.why == (
        "`int(...)` of an item of `.sizes` of a call of `.parse_args` of a call of "
        "`argparse.ArgumentParser`"
    ), found
    assert found.where is not None and found.where[1] == 2, found.where


@pytest.mark.parametrize(
    "call, why, line",
    [
        # not computed from `shape` by jaxfix: the trail ends at the call
        ("json.dumps(shape)", "a call of `json.dumps`", 6),
        # `max` of numbers, one unknown: that number itself, as it was
        ("max(1, shape)", "a call of `json.load`", 4),
    ],
)
def test_a_call_that_loses_a_value_itself_or_is_its_argument(
    call: str, why: str, line: int
) -> None:
    found = last_value(_LOADED + f"v = {call}\n")
    assert isinstance(found, Unknown), found
    assert found.why == why, found
    assert found.where is not None and found.where[1] == line, found.where


def test_a_name_a_class_does_not_define_is_told_apart_by_its_kind() -> None:
    """`Base.missing` is a name the class does not define; `int(Base.missing)` is a value
    jaxfix does not know, whose reason repeats the words "is not defined"."""
    program = "class Base:\n    pass\n"
    missing = last_value(program + "v = Base.missing\n")
    assert isinstance(missing, NotDefined), missing
    converted = last_value(program + "v = int(Base.missing)\n")
    assert isinstance(converted, Unknown), converted
    assert "is not defined" in converted.why, converted
    assert not isinstance(converted, NotDefined), converted


def test_a_functions_item_stores_of_a_name_are_found_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each read of a list changed by item stores asks for the stores before it: the module's
    reads of the name are scanned once per function and name, not once per read."""
    scans: list[str] = []
    scan = evaluate._item_stores_in

    def counted(
        module: Module, name: str, scope: ast.FunctionDef
    ) -> tuple[ast.Assign, ...]:
        scans.append(name)
        return scan(module, name, scope)

    monkeypatch.setattr(evaluate, "_item_stores_in", counted)
    engine, module = parsed(
        "def fill(vals):\n    vals[0] = 4\n    a = tuple(vals)\n    b = len(vals)\n"
        "    return a, b, vals[1]\nv = fill([2, 2])"
    )
    assert engine.value_of(module, last_expr(module)) == ((4, 2), 2, 2)
    assert scans == ["vals"]
