"""Code in a newer Python's grammar than the running one's (jaxfix/grammar.py): `ast` cannot
read it, yet it is not a syntax error. The file gets one line naming the Python it needs and
is not checked; answers that would read it are Unknown, never a crash; other modules are
answered as before."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Mesh, Unknown
from jaxfix.syntax import newer_grammar, syntax_error

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="the running Python reads PEP 695 itself"
)

# As in the JAX repository's jax/_src/core.py (line 967 there).
CORE = b"""import jax

MESH = jax.make_mesh((4,), ("data",))


class Tracer[TraceType: object](object):
    pass


def uses(build):
    return build(2)
"""


@pytest.mark.parametrize(
    ("source", "python", "line"),
    [
        (CORE, "3.12", 6),
        (b"type Axes = tuple[str, ...]\n", "3.12", 1),
        (b"def first[T](items: list[T]) -> T:\n    return items[0]\n", "3.12", 1),
        (b'name = "x"\ntext = f"{"nested"}"\n', "3.12", 2),
        (b"try:\n    pass\nexcept ValueError, TypeError:\n    pass\n", "3.14", 3),
    ],
)
def test_newer_syntax_is_one_line_naming_the_python_it_needs(source, python, line):
    assert syntax_error(source) is None  # not the user's error
    found = newer_grammar(source)
    assert found is not None
    message, where = found
    assert message.startswith("not checked: this file needs Python " + python)
    assert f"run jaxfix with Python {python} or newer" in message
    assert where.line == line


def test_a_real_syntax_error_stays_one():
    source = b"class Broken[:\n    pass\n"
    assert newer_grammar(source) is None
    assert syntax_error(source) is not None


def test_code_the_running_python_reads_is_no_such_file():
    assert newer_grammar(b"x: list[int] = []\n") is None


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_bytes(b"")
    (package / "core.py").write_bytes(CORE)
    (package / "train.py").write_bytes(
        b"import jax\nfrom pkg.core import MESH\n\n"
        b"with jax.set_mesh(MESH):\n    pass\n"
        b'other = jax.make_mesh((8,), ("model",))\n'
    )
    (package / "helpers.py").write_bytes(
        b'import jax\n\ndef build(n):\n    return jax.make_mesh((n,), ("data",))\n'
    )
    return tmp_path


def _engine(tree: Path) -> Engine:
    return Engine(
        roots=(tree,), files=tuple(sorted(tree.rglob("*.py"))), jax_version=(0, 10, 2)
    )


def _values(engine: Engine, module: Module, names: set[str]) -> list[object]:
    return [
        engine.value_of(module, node)
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in names
        or isinstance(node, ast.Name)
        and node.id in names
    ]


def test_the_file_itself_is_unknown_naming_the_python(tree):
    found = _engine(tree).begin(tree / "pkg" / "core.py")
    assert isinstance(found, Unknown)
    assert "needs Python 3.12's grammar" in found.why
    assert "line 6" in found.why


def test_an_import_of_it_is_unknown_and_the_rest_of_the_module_is_answered(tree):
    engine = _engine(tree)
    module = engine.begin(tree / "pkg" / "train.py")
    assert isinstance(module, Module)
    (imported,) = _values(engine, module, {"MESH"})
    assert isinstance(imported, Unknown)
    (other,) = _values(engine, module, {"make_mesh"})
    assert isinstance(other, Mesh) and other.axis_sizes == (8,)


def test_a_caller_in_it_makes_the_parameters_unknown(tree):
    caller = b"\nfrom pkg.helpers import build\nbuild(4)\n"
    (tree / "pkg" / "run.py").write_bytes(caller)
    engine = _engine(tree)
    module = engine.begin(tree / "pkg" / "helpers.py")
    assert isinstance(module, Module)
    (built,) = _values(engine, module, {"make_mesh"})
    assert isinstance(built, Mesh) and built.axis_sizes == (4,)  # its one caller
    (tree / "pkg" / "core.py").write_bytes(CORE + caller.replace(b"4", b"2"))
    engine = _engine(tree)
    module = engine.begin(tree / "pkg" / "helpers.py")
    assert isinstance(module, Module)
    (built,) = _values(engine, module, {"make_mesh"})
    assert isinstance(built, Mesh) and built.axis_sizes == (None,)  # a caller unseen
