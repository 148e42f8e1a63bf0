"""The engine's arrays (arrays.py): which are unsharded, which placed with what spec, and the
shape the code shows, asked of small programs."""

from __future__ import annotations

import ast

import pytest

from ast_programs import last_expr, last_value, parsed
from jaxfix.analysis.ast_engine.values import Array, Mesh, Sharding, Spec, Unknown

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
