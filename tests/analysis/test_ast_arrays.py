"""The engine's arrays (arrays.py): which are unsharded, which placed with what spec, and the
shape the code shows, asked of small programs."""

from __future__ import annotations

import ast

import pytest

from ast_programs import last_expr, last_value, parsed
from jaxfix.analysis.ast_engine.values import (
    Array,
    DictValue,
    Mesh,
    Sharding,
    Spec,
    Unknown,
)

HEAD = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((4, 2), ("data", "model"))
"""


def _array(source: str) -> Array:
    found = last_value(HEAD + source)
    assert isinstance(found, Array), found
    return found


@pytest.mark.parametrize(
    ("source", "shape", "exact"),
    [
        ("jnp.ones((8, 2))", (8, 2), True),
        ("jnp.zeros(8)", (8,), True),
        ("np.arange(16.0).reshape(8, 2)", (8, 2), True),
        ("np.arange(16.0).reshape(-1, 2)", (None, 2), True),
        ("jnp.ones((8, 2)).T", (2, 8), True),
        ("jnp.ones((8, 2)).astype(jnp.bfloat16) * 2", (8, 2), True),
        ("np.array([[1, 2], [3, 4]])", (2, 2), True),
        ("np.array([x] * n)", (None,), False),
        ("jax.random.normal(jax.random.key(0), (8, 4))", (8, 4), True),
        ("jnp.sin(jnp.ones((8, 2)))", (), False),
        ("np.asarray(jnp.ones((8, 2)))", (8, 2), True),
    ],
)
def test_arrays_the_code_makes_unsharded(source, shape, exact):
    array = _array(source)
    assert array.unsharded
    assert (array.shape, array.exact_rank) == (shape, exact)


@pytest.mark.parametrize(
    "source",
    [
        'jnp.ones((8, 2), out_sharding=P("data"))',
        'jax.random.normal(jax.random.key(0), (8, 4), out_sharding=P("data"))',
        "jnp.ones((8, 2), device=jax.devices()[0])",
    ],
)
def test_an_array_given_a_sharding_is_not_known_unsharded(source):
    found = last_value(HEAD + source)
    assert not (isinstance(found, Array) and found.unsharded), found


def test_device_put_places_with_the_spec_and_keeps_the_shape():
    array = _array('jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("model")))')
    assert isinstance(array.sharding, Sharding)
    assert isinstance(array.sharding.mesh, Mesh)
    assert array.sharding.spec == Spec(("model",))
    assert array.known_shape == (8, 4)


def test_asarray_of_a_placed_array_is_that_array():
    placed = 'jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data")))'
    assert not _array(f"jnp.asarray({placed})").unsharded
    assert _array(f"np.asarray({placed})").unsharded


def test_device_put_without_a_sharding_keeps_the_array():
    assert _array("jax.device_put(np.ones((8, 2)))").known_shape == (8, 2)
    found = last_value(HEAD + "def f(x):\n    return jax.device_put(x)\nf")
    assert not isinstance(found, Array)


def _parameter(source: str, name: str):
    engine, module = parsed(HEAD + source)
    for node in ast.walk(module.tree):
        if (
            isinstance(node, ast.Name)
            and node.id == name
            and isinstance(node.ctx, ast.Load)
        ):
            return engine.value_of(module, node)
    raise AssertionError(name)


def test_a_parameter_every_caller_passes_an_unsharded_array_for():
    found = _parameter(
        "def g(b):\n    return b\n"
        "def f(a):\n    return g(a)\n"
        "f(jnp.ones((8, 2)))\nf(np.zeros((8, 3)))\n",
        "b",
    )
    assert isinstance(found, Array) and found.unsharded
    assert (found.shape, found.exact_rank) == ((8, None), True)


def test_callers_passing_placed_and_unsharded_arrays_give_unknown():
    found = _parameter(
        "def g(b):\n    return b\n"
        "g(jnp.ones((8, 2)))\n"
        'g(jax.device_put(jnp.ones((8, 2)), NamedSharding(mesh, P("data"))))\n',
        "b",
    )
    assert isinstance(found, Unknown)


@pytest.mark.parametrize(
    "call",
    [
        "(lambda b: b.sum())(jnp.ones((8, 2)))",
        "jax.jit(lambda b: b.sum())(jnp.ones((8, 2)))",
        "jax.jit(lambda b: b.sum(), donate_argnums=0)(jnp.ones((8, 2)))",
    ],
)
def test_a_lambda_called_where_it_is_written_takes_that_calls_argument(call):
    found = _parameter(call + "\n", "b")
    assert isinstance(found, Array) and found.unsharded
    assert found.known_shape == (8, 2)


@pytest.mark.parametrize(
    "call",
    [
        "jax.vmap(lambda b: b.sum())(jnp.ones((8, 2)))",
        'jax.jit(lambda b: b.sum(), in_shardings=P("data"))(jnp.ones((8, 2)))',
        "(lambda b, c=1: b.sum())(jnp.ones((8, 2)))",
        "(lambda b: b.sum())(*[jnp.ones((8, 2))])",
    ],
)
def test_a_lambda_transformed_otherwise_or_bound_loosely_is_not_followed(call):
    assert isinstance(_parameter(call + "\n", "b"), Unknown)


def test_an_objects_call_takes_its_argument_from_the_calls_of_the_object():
    found = _parameter(
        "class Step:\n"
        "    def __init__(self, scale):\n        self.scale = scale\n"
        "    def __call__(self, x):\n        return x * self.scale\n"
        "step = Step(2)\nstep(jnp.ones((8, 2)))\n",
        "x",
    )
    assert isinstance(found, Array) and found.known_shape == (8, 2)


def test_an_object_used_other_than_called_gives_unknown():
    found = _parameter(
        "class Step:\n"
        "    def __init__(self, scale):\n        self.scale = scale\n"
        "    def __call__(self, x):\n        return x * self.scale\n"
        "step = Step(2)\nstep(jnp.ones((8, 2)))\nrun(step)\n",
        "x",
    )
    assert isinstance(found, Unknown)


def test_an_arrays_truth_is_not_known():
    engine, module = parsed(HEAD + "x = jnp.ones(1)\ny = 1 if x else 2\ny")
    assert isinstance(engine.value_of(module, last_expr(module)), Unknown)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("tuple(int(n) for n in np.array((1, 2, 2)) * np.array([2, 2, 1]))", (2, 4, 2)),
        ("tuple(np.array((1, 2, 2)) * 2)", (2, 4, 4)),
        ("tuple(np.array((4, 6)) // np.array((2, 3)) - 1)", (1, 1)),
        ("int(np.prod(np.array((1, 2, 2)) * np.array((2, 2, 1))))", 16),
        ("len(np.array((1, 2, 2)))", 3),
        ("any(s > 1 for s in np.array((1, 1, 2)))", True),
        ("all(s > 1 for s in (1, 2))", False),
    ],
)
def test_a_numpy_array_of_known_integers_keeps_them(source, expected):
    assert last_value(HEAD + source) == expected


@pytest.mark.parametrize(
    "source",
    [
        # NumPy broadcasts a one-element array: pairing items one by one would give (2,)
        "tuple(np.array((1, 1, 1)) * np.array([2]))",
        "tuple(np.array((1, 2)).astype(bool) * np.array((2, 2)))",
        "tuple(jnp.array((1, 2)) * jnp.array((2, 2)))",
        "tuple(np.array((True, False)) + np.array((True, True)))",
        "tuple(np.array((1, 2), dtype=np.int8) * np.array((2, 2)))",
        "tuple(np.array((1, 2)) * np.array((2, 0.5)))",
    ],
)
def test_integers_numpy_may_compute_otherwise_stay_unknown(source):
    found = last_value(HEAD + source)
    assert not isinstance(found, tuple), found


# Operations of placed arrays, and what a function jitted without shardings returns: on their
# mesh where its axes are Explicit (JAX types each result so, or raises), else not said.
PLACED = """\
x = jax.device_put(jnp.ones((8, 2)), NamedSharding(mesh, P("data")))
w = jax.device_put(jnp.ones((2, 2)), NamedSharding(mesh, P(None, "model")))
params = {"w": w, "b": jax.device_put(jnp.zeros(2), NamedSharding(mesh, P("model")))}
auto = jax.make_mesh((4, 2), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
xa = jax.device_put(jnp.ones((8, 2)), NamedSharding(auto, P("data")))
other = jax.make_mesh((2, 4), ("data", "model"))
xo = jax.device_put(jnp.ones((8, 2)), NamedSharding(other, P("data")))

def loss_fn(params, x):
    return -jnp.mean(jnp.tanh(x @ params["w"]) + params["b"])

@jax.jit
def step(params, x):
    loss, grads = jax.value_and_grad(loss_fn)(params, x)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss
"""


def _on_mesh(found: object) -> tuple[int, ...] | None:
    """The axis sizes of the mesh `found` (an array) is on, None when not known."""
    if not isinstance(found, Array) or not isinstance(found.sharding, Sharding):
        return None
    mesh = found.sharding.mesh
    return mesh.axis_sizes if isinstance(mesh, Mesh) else None


@pytest.mark.parametrize(
    "source",
    [
        "x @ w",
        "jnp.tanh(x @ w) * 2.0 + 1",
        "-x",
        "x.T",
        "x.reshape(x.shape[0], -1)",
        "jnp.sum(x, axis=-1, dtype=jnp.float32)",
        "jax.nn.relu(jnp.dot(x, params['w']))",
        "jax.nn.one_hot(x, 4)",
        "x.mean()",
        "jax.jit(lambda a, b: a @ b)(x, w)",
        "jax.jit(lambda a: (a * 2, None))(x)[0]",
        "jax.value_and_grad(loss_fn)(params, x)[0]",
        "jax.value_and_grad(loss_fn)(params, x)[1]['w']",
        "jax.grad(loss_fn)(params, x)['b']",
        "step(params, x)[0]['w']",
        "step(params, x)[1]",
    ],
)
def test_what_operations_of_arrays_on_an_explicit_mesh_give_is_on_it(source):
    assert _on_mesh(last_value(HEAD + PLACED + source)) == (4, 2)


@pytest.mark.parametrize(
    "source",
    [
        "xa * 2",  # Auto axes: the compiler picks, a context mesh may win
        "jax.jit(lambda a: a * 2)(xa)",
        "x @ xo",  # two meshes: JAX raises
        "x + jnp.ones(2)",  # a constant made under a context mesh is on that one
        "x * unknown_thing",
        "jax.jit(lambda a: a * 2, in_shardings=NamedSharding(other, P()))(x)",
        "jax.jit(lambda a: 2.0)(x)",  # a number becomes an array on a mesh not shown
        "jax.value_and_grad(loss_fn, has_aux=True)(params, x)[1]['w']",
        "np.sum(x)",  # NumPy gives a host array
    ],
)
def test_operations_not_surely_on_one_explicit_mesh_are_not_said_to_be(source):
    assert _on_mesh(last_value(HEAD + PLACED + source)) is None


def test_a_jitted_function_keeps_the_structure_and_a_placement_its_body_makes():
    found = last_value(
        HEAD
        + PLACED
        + "jax.jit(lambda a: {'y': jax.device_put(a, NamedSharding(other, P())), 'n': None})(x)"
    )
    assert isinstance(found, DictValue)
    assert _on_mesh(found.get("y")) == (2, 4)
    assert found.get("n") is None


# A name a loop carries: the arrays it enters with, widened to what every way through the
# loop gives (on one mesh, the spec unknown where it changes), or Unknown.
LOOP = """\
for i in range(n):
    params, loss = step(params, x)
"""


@pytest.mark.parametrize(
    "source",
    [
        LOOP + "params['w']",
        LOOP.replace("for i in range(n):", "while keep_going():") + "params['b']",
        "for i in range(n):\n    x = jnp.tanh(x) * 2\nx",
        "for i in range(n):\n    if i % 2:\n        x = -x\nx",
    ],
)
def test_what_a_loop_carries_on_one_mesh_stays_on_it(source):
    assert _on_mesh(last_value(HEAD + PLACED + source)) == (4, 2)


@pytest.mark.parametrize(
    "source",
    [
        "for i in range(n):\n    x = jax.device_put(x, NamedSharding(other, P()))\nx",
        "for i in range(n):\n    x = xa * 2\nx",
        "for i in range(n):\n    x = unknown_thing(x)\nx",
        "for i in range(n):\n    params, loss = unknown_step(params, x)\nparams['w']",
    ],
)
def test_what_a_loop_may_move_or_lose_is_not_said(source):
    assert _on_mesh(last_value(HEAD + PLACED + source)) is None
