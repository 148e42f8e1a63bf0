"""Decorators and `@contextmanager` functions that enter a mesh, followed as real test helpers
write them: a factory's mesh built from its arguments, through a helper that branches on them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest

from helpers import options_from_args, run_engine
from jaxfix.analysis.contexts import Entry
from jaxfix.analysis.expected_errors import ExpectedErrors
from jaxfix.analysis.module import ModuleAnalysis, new_project_index
from jaxfix.analysis.names import Api
from jaxfix.analysis.project import InProject
from jaxfix.analysis.values import MeshValue, Unknown
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper
from jaxfix.codemods import RULES
from jaxfix.engine import process_source
from jaxfix.screen import module_facts
from test_contexts import analyze, described, target
from test_project_index import analysis_of, write

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
        (
            "@with_mesh_of((2,), 'x')",
            "(2,) ('x',)",
        ),  # one name as a string, as make_mesh takes it
        ("@with_mesh_of(shape=(8,), names=('x',))", "(8,) ('x',)"),
        (
            "@with_mesh_of((2,), 'x', ordered=True)",
            "(2,) ('x',)",
        ),  # a Mesh of jax.devices() reshaped to the shape
        ("@with_mesh_of(SHAPE, 'x')", "unknown"),
    ],
)
def test_a_factorys_mesh_is_built_from_its_arguments(decorator, expected):
    analysis = analyze(
        FACTORY
        + f"SHAPE = tuple(range(3))\n{decorator}\ndef test_it(mesh):\n    target()\n"
    )
    sites = described(analysis, target(analysis))
    if expected == "unknown":
        assert [(e, a) for e, a, _ in sites] == [(Entry.DECORATOR, Api.SET_MESH)]
        assert all(
            isinstance(s.mesh, MeshValue) and s.mesh.size is None
            for s in analysis.contexts_at(target(analysis))
        )
    else:
        assert sites == [(Entry.DECORATOR, Api.SET_MESH, expected)]


def test_each_decorated_function_gets_its_own_arguments():
    analysis = analyze(
        FACTORY
        + "@with_mesh_of((2,), 'x')\ndef a(mesh):\n    first()\n@with_mesh_of((4,), 'x')\ndef b(mesh):\n    second()\n"
    )
    assert described(analysis, target(analysis, "first")) == [
        (Entry.DECORATOR, Api.SET_MESH, "(2,) ('x',)")
    ]
    assert described(analysis, target(analysis, "second")) == [
        (Entry.DECORATOR, Api.SET_MESH, "(4,) ('x',)")
    ]


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
    assert described(analysis, target(analysis)) == [
        (Entry.WITH, Api.SET_MESH, "(4,) ('x',)")
    ]


def test_the_expected_error_in_a_factory_decorated_test_is_found_then_dropped(
    monkeypatch,
):
    """jax's test_use_abstract_mesh_override: found (reported with the exemption off), not reported."""
    source = (
        FIXTURES / "JAX002" / "decorator_factory_expected_error_in_test.py"
    ).read_text()
    assert run_engine(source, ["--unsafe-fixes"]).diagnostics == ()
    monkeypatch.setattr(
        ExpectedErrors, "expects", lambda self, node, templates, seen=frozenset(): False
    )
    (found,) = run_engine(source, ["--unsafe-fixes"]).diagnostics
    assert (
        found.code == "JAX002"
        and "size 2" in found.message
        and "size 4" in found.message
    )


# A test helper module as jax's test_util is written: internal spellings of the mesh APIs.
TESTING = """
import contextlib
import functools
import math
import unittest

import jax
from jax._src import sharding_impls


def create(shape, names, axis_types=None):
    if len(jax.devices()) < math.prod(shape):
        raise unittest.SkipTest("too few devices")
    return sharding_impls.make_mesh(shape, names, axis_types)


def with_mesh_of(shape, names):
    def decorator(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            mesh = create(shape, names)
            with sharding_impls.set_mesh(mesh):
                return fn(*args, **kwargs, mesh=mesh)
        return run
    return decorator


@contextlib.contextmanager
def data_parallel(n):
    with sharding_impls.set_mesh(create((n,), "x")):
        yield


def plain(fn):
    return fn
"""

USER = """
from . import testing as tu
from .testing import data_parallel, plain, with_mesh_of


@tu.with_mesh_of((2,), "x")
def test_attribute(mesh):
    first()


@with_mesh_of((4,), "x")
def test_name(mesh):
    second()


def stage():
    with data_parallel(8):
        third()


@plain
def test_plain():
    fourth()
"""


def test_decorators_and_contextmanagers_imported_from_another_module_of_the_tree(
    tmp_path,
):
    write(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/testing.py": TESTING, "pkg/test_user.py": USER},
    )
    analysis, _ = analysis_of(
        tmp_path / "pkg" / "test_user.py", new_project_index((tmp_path,))
    )
    assert described(analysis, target(analysis, "first")) == [
        (Entry.DECORATOR, Api.SET_MESH, "(2,) ('x',)")
    ]
    assert described(analysis, target(analysis, "second")) == [
        (Entry.DECORATOR, Api.SET_MESH, "(4,) ('x',)")
    ]
    assert described(analysis, target(analysis, "third")) == [
        (Entry.WITH, Api.SET_MESH, "(8,) ('x',)")
    ]
    assert described(analysis, target(analysis, "fourth")) == []
    (site,) = analysis.contexts_at(target(analysis, "first"))
    assert analysis.line(site.node) == 6  # the decorator, a node of this module
    assert (tmp_path / "pkg" / "testing.py").resolve() in analysis.dependencies


def test_without_the_project_index_an_imported_decorator_is_not_followed(tmp_path):
    write(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/testing.py": TESTING, "pkg/test_user.py": USER},
    )
    module = cst.parse_module((tmp_path / "pkg" / "test_user.py").read_bytes())
    analysis = ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), (0, 10, 2)
    )
    assert described(analysis, target(analysis, "first")) == []
    assert [(e, a) for e, a, _ in described(analysis, target(analysis, "third"))] == [
        (Entry.WITH, None)
    ]


INNER = "from jax.sharding import AbstractMesh, use_abstract_mesh\n"


@pytest.mark.parametrize(
    "source,kept",
    [
        (
            "from .testing import with_mesh_of\n@with_mesh_of((2,), 'x')\ndef f():\n    with use_abstract_mesh(AbstractMesh((4,), ('x',))):\n        pass\n",
            True,
        ),
        (
            "from . import testing as tu\nwith tu.data_parallel(2):\n    with use_abstract_mesh(AbstractMesh((4,), ('x',))):\n        pass\n",
            True,
        ),
        (
            "import helpers\nstack.enter_context(helpers.data_parallel(2))\nwith use_abstract_mesh(AbstractMesh((4,), ('x',))):\n    pass\n",
            True,
        ),
        (
            "from jax._src import test_util as jtu\n@jtu.with_explicit_mesh((2,), 'x')\ndef f():\n    with use_abstract_mesh(AbstractMesh((4,), ('x',))):\n        pass\n",
            True,
        ),
        # the standard library, JAX's public APIs, pytest: nothing of another module can enclose it
        (
            "import functools, jax, pytest\n@functools.cache\n@jax.jit\n@pytest.mark.slow\ndef f():\n    with open('x'), use_abstract_mesh(AbstractMesh((4,), ('x',))):\n        pass\n",
            False,
        ),
    ],
    ids=[
        "imported-decorator",
        "imported-context-manager",
        "entered-by-exit-stack",
        "jax-internal-test-helper",
        "stdlib-and-public-jax",
    ],
)
def test_jax002_screen_keeps_a_file_whose_enclosing_mesh_may_be_entered_in_another_module(
    tmp_path, source, kept
):
    """Each helper module enters a mesh (tests/test_screen_imports.py has those that do not)."""
    jax_src = "jax/_src/__init__.py"
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/testing.py": TESTING,
            "helpers.py": TESTING,
            "jax/__init__.py": "",
            jax_src: "",
            "jax/_src/test_util.py": TESTING.replace(
                "def with_mesh_of(", "def with_explicit_mesh("
            ),
        },
    )
    path = tmp_path / "pkg" / "user.py"
    facts = module_facts(
        (INNER + source).encode(), InProject(path, new_project_index((tmp_path,)))
    )
    assert facts is not None and RULES["JAX002"].screen(facts) is kept
    assert RULES["JAX002"].may_apply((INNER + source).encode())


@pytest.mark.parametrize(
    "code,expected",
    [
        # jax's test_use_abstract_mesh_override rebinds its inner mesh; each use has just bound it
        ("def t():\n    if c:\n        m = 4\n        use(m)\n    m = 2\n", 4),
        ("def t():\n    m = 4\n    with c:\n        use(m)\n    m = 2\n", 4),
        ("m = 4\nif c:\n    m = 8\nuse(m)\n", None),  # the if may have rebound it
        (
            "m = 4\nfor _ in r:\n    use(m)\n    m = 8\n",
            None,
        ),  # the loop's later binding reaches it
        (
            "m = 4\nwith c as m:\n    use(m)\nm = 8\n",
            None,
        ),  # bound by the statement holding the use
        (
            "m = 4\ndef f():\n    use(m)\nm = 8\n",
            None,
        ),  # read when f runs, not where it is defined
        (
            "m = 4\nif c:\n    m = 2\ng = list(use(m) for _ in r)\nm = 8\n",
            None,
        ),  # a generator runs later
    ],
)
def test_a_name_rebound_in_its_function_has_the_value_of_the_binding_just_before_its_use(
    code, expected
):
    analysis = analyze(code)
    value = analysis.value_of(target(analysis, "use").args[0].value)
    assert value == expected if expected is not None else isinstance(value, Unknown)


def test_the_engine_follows_an_imported_decorator_and_contextmanager(tmp_path):
    """End to end: the prefilter, the screen and the rule see a mesh entered in another module."""
    write(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/testing.py": TESTING, "pkg/stages.py": STAGES},
    )
    path = tmp_path / "pkg" / "stages.py"
    options = replace(options_from_args(["--unsafe-fixes"]), project_roots=(tmp_path,))
    result = process_source(path, path.read_bytes(), options)
    assert [(d.code, d.start.line) for d in result.diagnostics] == [
        ("JAX002", 8),
        ("JAX002", 14),
    ]
    assert (
        result.fixed is not None
        and result.fixed.decode().count("AbstractMesh((2,), ('x',))") == 2
    )
    assert (tmp_path / "pkg" / "testing.py").resolve() in {
        Path(d.path).resolve() for d in result.dependencies
    }


STAGES = """
from jax.sharding import AbstractMesh, use_abstract_mesh
from . import testing as tu


@tu.with_mesh_of((2,), "x")
def stage(mesh):
    with use_abstract_mesh(AbstractMesh((4,), ('x',))):
        pass


def evaluate():
    with tu.data_parallel(2):
        with use_abstract_mesh(AbstractMesh((4,), ('x',))):
            pass
"""
