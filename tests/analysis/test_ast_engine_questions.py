"""What the `ast` engine's modules beyond values and contexts answer (device shapes, arguments
that bring no devices, jit applications, import spellings, eager ops), on small programs: one
fact each, no JAX imported (fast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.analysis import Analysis
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import AxisType, Mesh, MeshKind, Unknown
from jaxfix.analysis.names import Api

HEAD = (
    "import jax\n"
    "from jax.sharding import AbstractMesh, Mesh\n"
    "import numpy as np\n"
    "from jax.experimental import mesh_utils\n"
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


@pytest.mark.parametrize(
    "code, sizes",
    [
        ("m = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('a', 'b'))", (2, 4)),
        ("m = Mesh(np.asarray(jax.devices()).reshape((2, 4)), ('a', 'b'))", (2, 4)),
        (
            "m = Mesh(np.array(jax.devices()).reshape(-1, 2), ('a', 'b'))",
            (None, 2),
        ),  # device count unknown
        ("m = Mesh(np.array(jax.devices()[:8]).reshape(-1, 2), ('a', 'b'))", (4, 2)),
        ("m = Mesh(np.array(jax.devices()[2:6]).reshape([2, -1]), ('a', 'b'))", (2, 2)),
        ("d = jax.devices()\nm = Mesh(np.array(d[:4]), ('a',))", (4,)),
        ("m = Mesh(jax.devices(), 'x')", (None,)),
        ("m = Mesh(jax.local_devices()[:2], ('x',))", (2,)),
        ("m = Mesh(np.reshape(jax.devices()[:8], (4, 2)), ('a', 'b'))", (4, 2)),
        ("m = Mesh(mesh_utils.create_device_mesh((2, 4)), ('a', 'b'))", (2, 4)),
        (
            "m = Mesh(jax.experimental.mesh_utils.create_device_mesh([4, 2], jax.devices()), ('a', 'b'))",
            (4, 2),
        ),
        (
            "dims = (2, 2, 2)\nm = Mesh(np.array(jax.devices()).reshape(*dims), ('a', 'b', 'c'))",
            (2, 2, 2),
        ),
        (  # each axis the product of its size within a slice and across slices
            "m = Mesh(mesh_utils.create_hybrid_device_mesh([2, 2], [2, 1]), ('a', 'b'))",
            (4, 2),
        ),
        (
            "m = Mesh(mesh_utils.create_hybrid_device_mesh((4, 1), dcn_mesh_shape=(1, 2),"
            " devices=jax.devices(), process_is_granule=True), ('a', 'b'))",
            (4, 2),
        ),
        (
            "m = Mesh(mesh_utils.create_hybrid_device_mesh([2, 2], [n, 1]), ('a', 'b'))",
            (None, 2),
        ),
        (
            "shape = tuple(map(int, ['4', '2']))\nm = Mesh(mesh_utils.create_device_mesh(shape), ('a', 'b'))",
            (4, 2),
        ),
        (
            "def twice(n):\n    return 2 * n\n"
            "m = Mesh(mesh_utils.create_device_mesh(list(map(twice, (2, 1)))), ('a', 'b'))",
            (4, 2),
        ),
        (
            "m = Mesh(mesh_utils.create_device_mesh(tuple(map(max, (4, 1), (1, 2)))), ('a', 'b'))",
            (4, 2),
        ),
        (
            "m = Mesh(np.array(jax.devices()[:8]).reshape(2, 4).flatten().reshape(4, 2), ('a', 'b'))",
            (4, 2),
        ),
        (
            "c = jax.make_mesh((2, 4), ('a', 'b'))\nm = Mesh(c.devices, c.axis_names)",
            (2, 4),
        ),
        (
            "c = jax.make_mesh((2, 4), ('a', 'b'))\nm = Mesh(np.array(jax.devices()).reshape(c.axis_sizes), ('a', 'b'))",
            (2, 4),
        ),
    ],
)
def test_mesh_sizes_from_the_shape_of_its_devices(tmp_path, code, sizes):
    mesh = last_value(tmp_path, code)
    assert isinstance(mesh, Mesh)
    assert mesh.kind is MeshKind.CONCRETE
    assert mesh.axis_sizes == sizes
    assert mesh.axis_types == (AxisType.AUTO,) * len(sizes)


@pytest.mark.parametrize(
    "code",
    [
        "m = Mesh(np.array(jax.devices()[:8]).reshape(3, 3), ('a', 'b'))",  # NumPy raises
        "m = Mesh(np.array(jax.devices()[:8]).reshape(-1, 3), ('a', 'b'))",  # NumPy raises
        "m = Mesh(np.array(jax.devices()).reshape(2, 4), ('a',))",  # JAX raises: ranks differ
        "m = Mesh(jax.devices().reshape(2, 4), ('a', 'b'))",  # a list has no reshape
        "m = Mesh(other.reshape(2, 4), ('a', 'b'))",  # reshape of something unknown
        "m = Mesh(np.array(jax.devices(), ndmin=2), ('a', 'b'))",
        "m = Mesh(mesh_utils.create_device_mesh(shape), ('a', 'b'))",
        "m = Mesh(mesh_utils.create_hybrid_device_mesh([2, 2], [2, 1, 1]), ('a', 'b'))",  # JAX raises: ranks differ
        "m = Mesh(mesh_utils.create_hybrid_device_mesh([2, 2], dcn), ('a', 'b'))",
        "m = Mesh(mesh_utils.create_device_mesh(tuple(map(int, shape))), ('a', 'b'))",
        "m = Mesh(AbstractMesh((2, 4), ('a', 'b')).devices, ('a', 'b'))",  # an AbstractMesh has no devices
    ],
)
def test_mesh_sizes_jaxfix_cannot_know(tmp_path, code):
    mesh = last_value(tmp_path, code)
    assert (
        not isinstance(mesh, Mesh) or mesh.axis_sizes is None or None in mesh.axis_sizes
    )


# -- arguments that bring no devices (device_free.py) --------------------------------------

DEVICES_HEAD = (
    "import jax\n"
    "import jax.numpy as jnp\n"
    "import numpy as np\n"
    "committed = jax.device_put(np.ones(3), jax.devices()[0])\n"
    "shape = (2, 4)\n"
)


def analysis_of(tmp_path: Path, source: str) -> Analysis:
    main = tmp_path / "main.py"
    main.write_text(source)
    engine = Engine(roots=(tmp_path,), files=(main,), jax_version=(0, 10, 2))
    module = engine.module(main)
    assert isinstance(module, Module)
    return Analysis(engine, module)


def last_expression(tmp_path: Path, source: str) -> tuple[Analysis, ast.expr]:
    analysis = analysis_of(tmp_path, source)
    last = analysis.module.tree.body[-1]
    assert isinstance(last, ast.Expr)
    return analysis, last.value


@pytest.mark.parametrize(
    "argument",
    [
        "np.arange(8)",
        "np.float32(1.0)",
        "np.random.randn(3)",
        "3",
        "-1",
        "2.5",
        "1j",
        "True",
        "jnp.arange(8)",
        "jnp.ones((8,))",
        "jnp.zeros((2, 2), dtype=jnp.int32)",
        "jnp.full((8,), 2.0)",
        "jnp.eye(4)",
        "jnp.linspace(0, 1, 8)",
        "jnp.array([1.0, 2.0])",
        "jnp.asarray(np.ones(3))",
        "jax.device_put(np.arange(8))",
        "jax.device_put(np.arange(8), None)",
        "jax.device_put(3, device=None)",
        "(np.ones(3), jnp.zeros(2))",
        "[1, 2.0]",
        "{'a': np.ones(3), 'b': 2}",
        "host",  # through the one assignment that reaches it
    ],
)
def test_host_data_and_uncommitted_arrays_bring_no_devices(tmp_path, argument):
    analysis, expr = last_expression(
        tmp_path, DEVICES_HEAD + f"host = np.ones(3)\n{argument}\n"
    )
    assert analysis.brings_no_devices(expr)


@pytest.mark.parametrize(
    "argument",
    [
        "jnp.ones((8,), device=jax.devices()[0])",
        "jax.device_put(np.arange(8), jax.devices()[0])",
        "jax.device_put(np.arange(8), device=jax.devices()[0])",
        "jax.device_put(committed)",
        "jnp.asarray(committed)",
        "jnp.ones_like(committed)",
        "committed",
        "(np.ones(3), committed)",
        "jnp.arange(*shape)",
        "make_array()",
        "None",
        "'text'",
        "host",  # two assignments reach it
    ],
)
def test_arrays_that_may_carry_devices(tmp_path, argument):
    analysis, expr = last_expression(
        tmp_path,
        DEVICES_HEAD
        + "import sys\nhost = np.ones(3)\nif sys.argv:\n    host = committed\n"
        + f"{argument}\n",
    )
    assert not analysis.brings_no_devices(expr)


# -- jit applications (jitting.py) and how code is written (assignments.py) -----------------

JIT_HEAD = (
    "import functools\n"
    "import jax\n"
    "from jax.experimental.pjit import pjit\n"
    "from functools import partial\n"
    "def f(x):\n    return x\n"
)


@pytest.mark.parametrize(
    ("expression", "function", "keywords"),
    [
        ("jax.jit(f)", "f", []),
        (
            "jax.jit(f, static_argnums=0, donate_argnums=(1,))",
            "f",
            ["static_argnums", "donate_argnums"],
        ),
        ("pjit(f, in_shardings=None)", "f", ["in_shardings"]),
        ("jax.jit", None, []),
        ("jax.jit(static_argnames='n')", None, ["static_argnames"]),
        ("partial(jax.jit, static_argnums=(0,))", None, ["static_argnums"]),
        ("functools.partial(jax.jit)", None, []),
        ("jit_it = jax.jit\njit_it(f)", "f", []),  # spellings bound from jit's
        (
            "from jax import jit as J\npartial(J, donate_argnums=0)",
            None,
            ["donate_argnums"],
        ),
    ],
)
def test_jit_applications(tmp_path, expression, function, keywords):
    analysis, expr = last_expression(tmp_path, JIT_HEAD + expression + "\n")
    found = analysis.jit_application(expr)
    assert found is not None
    assert (ast.unparse(found.function) if found.function else None) == function
    assert sorted(found.keywords) == sorted(keywords)


@pytest.mark.parametrize(
    "expression",
    [
        "jax.vmap(f)",
        "partial(jax.jit, f)",  # a partial that binds the function is no decorator
        "partial(jax.jit, **options)",
        "jax.jit(*args)",
        "f",
    ],
)
def test_not_jit_applications(tmp_path, expression):
    analysis, expr = last_expression(tmp_path, JIT_HEAD + expression + "\n")
    assert analysis.jit_application(expr) is None


def test_written_as_follows_the_one_reaching_assignment(tmp_path):
    source = (
        "import sys\n"
        "a = jax_call()\n"
        "b = a\n"
        "c = 1\n"
        "if sys.argv:\n    c = 2\n"
        "def g():\n    return b\n"
        "x, y = 1, 2\n"
        "(b, c, x, g)\n"
    )
    analysis, expr = last_expression(tmp_path, source)
    assert isinstance(expr, ast.Tuple)
    b, c, x, g = expr.elts
    assert ast.unparse(analysis.written_as(b)) == "jax_call()"
    assert analysis.written_as(c) is c  # two assignments reach it
    assert analysis.written_as(x) is x  # unpacking
    assert isinstance(g, ast.Name)
    definition = analysis.definition(g)
    assert definition is not None and definition.name == "g"


def test_reads_reached_by_an_assignment(tmp_path):
    analysis = analysis_of(
        tmp_path,
        "lowered = first()\nlowered.compile()\nlowered = second()\nlowered.compile()\n",
    )
    first, _, second, _ = analysis.module.tree.body
    assert isinstance(first, ast.Assign) and isinstance(second, ast.Assign)
    assert [r.lineno for r in analysis.reads_reached(first, "lowered")] == [2]
    assert [r.lineno for r in analysis.reads_reached(second, "lowered")] == [4]


# -- import spellings (spelling.py) and eager ops (eager.py) --------------------------------


@pytest.mark.parametrize(
    ("imports", "spelled"),
    [
        ("import jax\n", ("jax", ())),
        ("import jax.numpy\n", ("jax", ())),
        ("import jax as jx\n", ("jx", ())),
        ("from jax import numpy\n", ("jax", (("jax", None),))),
        ("def f():\n    import jax\n", ("jax", (("jax", None),))),
    ],
)
def test_module_spelling(tmp_path, imports, spelled):
    assert analysis_of(tmp_path, imports).module_spelling("jax") == spelled


@pytest.mark.parametrize(
    ("call", "op"),
    [
        ("jax.random.key(0)", "jax.random.key"),
        ("jax.random.PRNGKey(0)", "jax.random.PRNGKey"),
        ("jnp.ones((8,), dtype=jnp.float32)", "jax.numpy.ones"),
        ("jnp.asarray([1.0])", "jax.numpy.asarray"),
        ("jnp.asarray(committed)", None),  # committed: it brings its device
        ("jnp.ones(8, device=jax.devices()[0])", None),
        ("np.ones(8)", None),  # NumPy computes on the host
        ("jax.eval_shape(f, 1)", None),
        ("jax.device_put(1.0)", None),
        ("jax.random.key(*seed)", None),
    ],
)
def test_eager_ops(tmp_path, call, op):
    analysis, expr = last_expression(tmp_path, DEVICES_HEAD + call + "\n")
    assert isinstance(expr, ast.Call)
    assert analysis.eager_op(expr) == op


@pytest.mark.parametrize(
    ("body", "needed"),
    [
        ("    out = jax.eval_shape(lambda a: a, 1)\n", None),
        ("    n = np.ones(8).sum()\n", None),
        ("    key = jax.random.key(0)\n", ("jax.random.key(0)", True)),
        ("    x = helper()\n    key = jax.random.key(0)\n", ("helper()", False)),
        ("    b = Box()\n", ("Box()", False)),  # a class of the tree: its __init__ runs
        # a jitted function computes; a callable jaxfix does not know may
        (
            "    y = jax.jit(jnp.sin)(np.ones(8))\n",
            ("jax.jit(jnp.sin)(np.ones(8))", False),
        ),
        ("    y = STEPS[name](1)\n", ("STEPS[name](1)", False)),
        ("    s = jax.jit(jnp.sin).lower(1.0).as_text()\n", None),  # JAX's own stages
        ("    print(len(np.ones(8)))\n", None),  # builtins
        (
            "    def later():\n        return jax.random.key(0)\n",
            None,
        ),  # not called here
    ],
)
def test_devices_needed_by_a_with_body(tmp_path, body, needed):
    source = (
        DEVICES_HEAD
        + "def helper():\n    return 1\n"
        + "class Box:\n    pass\n"
        + "with nothing:\n"
        + body
    )
    analysis = analysis_of(tmp_path, source)
    statement = analysis.module.tree.body[-1]
    assert isinstance(statement, ast.With)
    found = analysis.devices_needed(statement)
    assert (found if found is None else (analysis.text(found[0]), found[1])) == needed


def test_text_of_a_node_of_another_module_is_as_written_there(tmp_path):
    (tmp_path / "meshes.py").write_text(
        'from jax.sharding import AbstractMesh\nMESH = AbstractMesh((2, 4), ("x", "y"))\n'
    )
    analysis, expr = last_expression(tmp_path, "from meshes import MESH\nMESH\n")
    mesh = analysis.value_of(expr)
    assert isinstance(mesh, Mesh) and mesh.origin is not None
    assert analysis.text(mesh.origin) == 'AbstractMesh((2, 4), ("x", "y"))'
    assert analysis.text(expr) == "MESH"


@pytest.mark.parametrize(
    "source, may",
    [
        ("jax.shard_map(f, mesh=m)", True),
        ("shard_map(f, mesh=m)", True),  # a star import, a builtin: asked
        ("from jax.experimental.shard_map import shard_map as sm\nsm(f, mesh=m)", True),
        ("import jax.experimental.shard_map as smod\nsmod.shard_map(f)", True),
        ("smap = functools.partial(jax.shard_map, mesh=m)\nsmap(f)", True),
        ("a = jax.shard_map\nb = a\nb(f)", True),  # bound through another name
        ("b = a\na = jax.shard_map\nb(f)", True),  # in any order
        ("self.sm = jax.shard_map\nself.sm(f)", True),
        ("def g(fn=jax.shard_map):\n    return fn(f)\ng()", True),
        ("fns[0](f)", True),  # neither a name nor an attribute
        ("jax.jit(f)", False),
        ("helper(f)", False),
        # what its callers pass is not asked
        ("def g(fn):\n    return fn(f)\ng(jax.shard_map)", False),
        # a parameter without a default that another scope's `fn` shares the name of
        ("fn = jax.shard_map\ndef g(fn):\n    return fn(f)", False),
        ("fn = jax.shard_map\ndef g(fn=None):\n    return fn(f)", True),
        ("def g(fn):\n    fn = fn or jax.shard_map\n    return fn(f)", True),
        ("fn = jax.shard_map\ndef g(fn):\n    return [fn(f) for fn in fns]", True),
        ("from mylib import smap\nsmap(f)", False),
        # a name a function binds is its own: another function's name of the same spelling
        # is not bound from it (jax's lax.py binds `operand` from pjit code in one function
        # of hundreds reading their own `operand`)
        ("def g():\n    fn = jax.shard_map\n    return fn(f)", True),
        ("def h():\n    fn = jax.shard_map\ndef g(fn=None):\n    return fn(f)", False),
        (
            "def h():\n    fn = jax.shard_map\ndef g():\n    fn = make()\n    return fn(f)",
            False,
        ),
        ("def g():\n    a = jax.shard_map\n    b = a\n    return b(f)", True),
        (
            "def h():\n    a = jax.shard_map\ndef g():\n    b = a\n    return b(f)",
            False,
        ),
        (
            "def h():\n    fn = jax.shard_map\n    def g():\n        return fn(f)\n",
            True,
        ),
        (
            "def h():\n    global fn\n    fn = jax.shard_map\ndef g():\n    return fn(f)",
            True,
        ),
        (
            "def h():\n    fn = None\n    def k():\n        nonlocal fn\n"
            "        fn = jax.shard_map\n    k()\n    return fn(f)",
            True,
        ),
        (
            "class A:\n    sm = jax.shard_map\n    def g(self):\n        return self.sm(f)",
            True,
        ),
        ("def h():\n    sm = jax.shard_map\ndef g(o):\n    return o.sm(f)", False),
        (
            "def h():\n    from jax import shard_map as sm\ndef g():\n    return sm(f)",
            False,
        ),
        ("def g():\n    from jax import shard_map as sm\n    return sm(f)", True),
        ("g = lambda fn=jax.shard_map: fn(f)", True),
        (
            "def h(fn=jax.shard_map):\n    pass\ndef g(fn=None):\n    return fn(f)",
            False,
        ),
    ],
)
def test_a_callee_that_may_be_an_api(tmp_path, source, may):
    analysis = analysis_of(tmp_path, "import jax\nimport functools\n" + source + "\n")
    (call,) = (  # the call given `f`
        node
        for node in ast.walk(analysis.module.tree)
        if isinstance(node, ast.Call)
        and node.args
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "f"
    )
    assert analysis.may_call(call, Api.SHARD_MAP) is may


def test_the_arguments_of_a_call_of_something_unknown_are_not_evaluated(tmp_path):
    """Its value is Unknown whatever they are: a parameter passed to it is not looked for in
    the function's callers (their modules are neither parsed nor a dependency of the answer)."""
    (tmp_path / "other.py").write_text("from main import g\ng(4)\n")
    main = tmp_path / "main.py"
    main.write_text("def g(x):\n    return unknown_things[0](x)\n")
    engine = Engine(
        roots=(tmp_path,), files=(main, tmp_path / "other.py"), jax_version=(0, 10, 2)
    )
    module = engine.begin(main)
    assert isinstance(module, Module)
    function = module.tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    call = function.body[0].value  # type: ignore[attr-defined]
    assert isinstance(engine.value_of(module, call), Unknown)
    assert engine.project.read == {main.resolve()}
    # the argument alone is still asked of the callers
    assert engine.value_of(module, call.args[0]) == 4
    assert (tmp_path / "other.py").resolve() in engine.project.read
