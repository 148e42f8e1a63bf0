"""Decorators and `@contextmanager` functions that enter a mesh, followed as real test helpers
write them: a factory's mesh built from its arguments, through a helper that branches on them."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_engine
from test_contexts import analyze, described, target

from jaxfix.analysis.contexts import Entry
from jaxfix.analysis.expected_errors import ExpectedErrors
from jaxfix.analysis.names import Api
from jaxfix.analysis.values import MeshValue

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# Written the way jax's test_util writes with_explicit_mesh and create_mesh.
FACTORY = """
import math
import numpy as np

def build(shape, names, ordered=False, axis_types=None):
    if len(jax.devices()) < math.prod(shape):
        raise unittest.SkipTest("too few devices")
    if ordered:
        return Mesh(np.array(jax.devices()).reshape(shape), names, axis_types=axis_types)
    else:
        if axis_types is None:
            axis_types = (jax.sharding.AxisType.Auto,) * len(shape)
        return jax.make_mesh(shape, names, axis_types)

def with_mesh_of(shape, names, axis_types=None, ordered=False):
    axis_types = (jax.sharding.AxisType.Explicit,) * len(names) if axis_types is None else axis_types
    def decorator(fn):
        def run(*args, **kwargs):
            mesh = build(shape, names, ordered, axis_types=axis_types)
            with jax.set_mesh(mesh):
                return fn(*args, **kwargs, mesh=mesh)
        return run
    return decorator
"""


@pytest.mark.parametrize(
    "decorator,expected",
    [
        ("@with_mesh_of((2, 4), ('x', 'y'))", "(2, 4) ('x', 'y')"),
        ("@with_mesh_of((2,), 'x')", "(2,) ('x',)"),  # one name as a string, as make_mesh takes it
        ("@with_mesh_of(shape=(8,), names=('x',))", "(8,) ('x',)"),
        ("@with_mesh_of((2,), 'x', ordered=True)", "(2,) ('x',)"),  # a Mesh of jax.devices() reshaped to the shape
        ("@with_mesh_of(SHAPE, 'x')", "unknown"),
    ],
)
def test_a_factorys_mesh_is_built_from_its_arguments(decorator, expected):
    analysis = analyze(FACTORY + f"SHAPE = tuple(range(3))\n{decorator}\ndef test_it(mesh):\n    target()\n")
    sites = described(analysis, target(analysis))
    if expected == "unknown":
        assert [(e, a) for e, a, _ in sites] == [(Entry.DECORATOR, Api.SET_MESH)]
        assert all(isinstance(s.mesh, MeshValue) and s.mesh.size is None for s in analysis.contexts_at(target(analysis)))
    else:
        assert sites == [(Entry.DECORATOR, Api.SET_MESH, expected)]


def test_each_decorated_function_gets_its_own_arguments():
    analysis = analyze(FACTORY + "@with_mesh_of((2,), 'x')\ndef a(mesh):\n    first()\n@with_mesh_of((4,), 'x')\ndef b(mesh):\n    second()\n")
    assert described(analysis, target(analysis, "first")) == [(Entry.DECORATOR, Api.SET_MESH, "(2,) ('x',)")]
    assert described(analysis, target(analysis, "second")) == [(Entry.DECORATOR, Api.SET_MESH, "(4,) ('x',)")]


def test_a_contextmanager_is_evaluated_with_its_arguments():
    analysis = analyze(
        """
        @contextlib.contextmanager
        def data_parallel(n, names=("x",)):
            with jax.set_mesh(jax.make_mesh((n,), names)):
                yield

        def stage():
            with data_parallel(4):
                target()
        """
    )
    assert described(analysis, target(analysis)) == [(Entry.WITH, Api.SET_MESH, "(4,) ('x',)")]


def test_the_expected_error_in_a_factory_decorated_test_is_found_then_dropped(monkeypatch):
    """jax's test_use_abstract_mesh_override: found (reported with the exemption off), not reported."""
    source = (FIXTURES / "JAX002" / "decorator_factory_expected_error_in_test.py").read_text()
    assert run_engine(source, ["--unsafe-fixes"]).diagnostics == ()
    monkeypatch.setattr(ExpectedErrors, "expects", lambda self, node, templates, seen=frozenset(): False)
    (found,) = run_engine(source, ["--unsafe-fixes"]).diagnostics
    assert found.code == "JAX002" and "size 2" in found.message and "size 4" in found.message

