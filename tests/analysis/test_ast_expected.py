"""Code that tests an error is not a bug (jaxfix/analysis/ast_engine/expected.py): a node inside
an `assertRaises`-style block expecting the rule's error is a test of it; blocks that expect
something else expect nothing of it. Over the `ast` engine, no JAX imported (fast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.expected import ExpectedErrors
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Mesh
from jaxfix.codemods import RULES

HEADER = """\
import re
import unittest
import pytest
from jax.sharding import AbstractMesh, use_abstract_mesh

OUTER = AbstractMesh((8, 4), ("data", "model"))
INNER = AbstractMesh((16, 4), ("data", "model"))
PATTERN = "cannot change the size"
"""
TEST_CASE = """
class T(unittest.TestCase):
    def test_it(self):
        with use_abstract_mesh(OUTER):
"""
JAX002 = RULES["JAX002"].raises
SITE = "with use_abstract_mesh(INNER):\n    pass"


def _sites(module: Module) -> list[ast.Call]:
    """The `use_abstract_mesh(INNER)` calls: where JAX002 raises."""
    return [
        node
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "use_abstract_mesh"
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "INNER"
    ]


def expected(
    tmp_path: Path,
    source: str,
    others: dict[str, str] | None = None,
    templates: tuple[str, ...] = JAX002,
) -> list[bool]:
    """For each `use_abstract_mesh(INNER)` of main.py, in source order: a test of JAX002?"""
    for name, text in (others or {}).items():
        (tmp_path / name).write_text(text)
    main = tmp_path / "main.py"
    main.write_text(source)
    engine = Engine(roots=(tmp_path,), files=tuple(sorted(tmp_path.glob("*.py"))))
    module = engine.module(main)
    assert isinstance(module, Module)
    errors = ExpectedErrors(engine, module)
    sites = _sites(module)
    assert sites
    return [errors.expects(site, templates) for site in sites]


def in_test(block: str) -> str:
    """`block` indented under the outer mesh of a test method."""
    return (
        HEADER
        + TEST_CASE
        + "".join(f"            {line}\n" for line in block.splitlines())
    )


def expecting(manager: str) -> str:
    return f"with {manager}:\n" + "".join(f"    {line}\n" for line in SITE.splitlines())


def test_the_site_alone_is_not_a_test(tmp_path: Path) -> None:
    assert expected(tmp_path, in_test(SITE)) == [False]


@pytest.mark.parametrize(
    "manager",
    [
        "self.assertRaises(ValueError)",
        "self.assertRaises(Exception)",
        "self.assertRaises((TypeError, ValueError))",
        "self.assertRaisesRegex(ValueError, 'use_abstract_mesh cannot change the size.*')",
        "self.assertRaisesRegex(ValueError, '.*cannot change the size of the mesh.*')",
        "self.assertRaisesRegex(ValueError, r'with size=\\d+ and prev mesh')",
        "self.assertRaisesRegex(ValueError, \"Got new mesh: AbstractMesh\\\\('data': 16\")",
        "self.assertRaisesRegex(ValueError, expected_regex='(?i)USE_ABSTRACT_MESH')",
        "self.assertRaisesRegex(ValueError, PATTERN)",
        "self.assertRaisesRegex(ValueError, re.compile('size of the mesh'))",
        "self.assertRaisesRegex(ValueError, f'{PATTERN}')",
        "self.assertRaisesRegex(ValueError, re.escape('anything'))",
        "self.assertRaisesRegex(ValueError, 'unbalanced (')",
        "self.assertRaisesRegex(ValueError, None)",
        "self.assertRaisesWithPredicateMatch(ValueError, lambda e: True)",
        "self.assertRaises(CustomError)",
        "pytest.raises(ValueError)",
        "pytest.raises(ValueError, match='cannot change the size')",
        "self.assertRaisesRegex(ValueError, 'size', msg='why it failed')",
    ],
)
def test_a_block_expecting_the_error_is_a_test_of_it(
    tmp_path: Path, manager: str
) -> None:
    assert expected(tmp_path, in_test(expecting(manager))) == [True]


@pytest.mark.parametrize(
    "manager",
    [
        "self.assertRaises(TypeError)",
        "self.assertRaises((TypeError, KeyError))",
        "self.assertRaisesRegex(ValueError, 'Mismatch details')",
        "self.assertRaisesRegex(ValueError, '^Got new mesh')",
        "self.assertRaisesRegex(ValueError, 'and prev mesh: None')",
        "self.assertRaisesRegex(RuntimeError, 'cannot change the size')",
        "self.assertRaisesWithLiteralMatch(ValueError, 'use_abstract_mesh cannot change the size')",
        "pytest.raises(ValueError, match='Received incompatible devices')",
        "self.assertWarns(DeprecationWarning)",
    ],
)
def test_a_block_expecting_something_else_is_not(tmp_path: Path, manager: str) -> None:
    assert expected(tmp_path, in_test(expecting(manager))) == [False]


def test_values_come_from_the_engine(tmp_path: Path) -> None:
    """The exception and the pattern are values: a name bound to a tuple of exceptions, a
    pattern assigned in a branch both sides of which agree, pytest.raises however imported."""
    source = HEADER + (
        "import sys\n"
        "from pytest import raises as expect\n"
        "ERRORS = (TypeError, KeyError)\n"
        "if sys.argv:\n    OTHER = 'Mismatch details'\nelse:\n    OTHER = 'Mismatch details'\n"
        "def test_a():\n"
        "    with expect(ValueError, match=OTHER):\n"
        "        with use_abstract_mesh(INNER):\n            pass\n"
        "    with expect(ERRORS):\n"
        "        with use_abstract_mesh(INNER):\n            pass\n"
        "    with expect(ValueError, match=PATTERN):\n"
        "        with use_abstract_mesh(INNER):\n            pass\n"
    )
    assert expected(tmp_path, source) == [False, False, True]


def test_later_items_of_the_same_with_are_inside_earlier_ones_are_not(
    tmp_path: Path,
) -> None:
    assert expected(
        tmp_path,
        in_test(
            "with self.assertRaises(ValueError), use_abstract_mesh(INNER):\n    pass"
        ),
    ) == [True]
    assert expected(
        tmp_path,
        in_test(
            "with use_abstract_mesh(INNER), self.assertRaises(ValueError):\n    pass"
        ),
    ) == [False]


def test_a_function_defined_in_the_block_counts_as_run_there(tmp_path: Path) -> None:
    block = (
        "with self.assertRaises(ValueError):\n"
        "    def stage():\n        with use_abstract_mesh(INNER):\n            pass\n"
        "    stage()"
    )
    assert expected(tmp_path, in_test(block)) == [True]


HELPER = "def stage():\n    with use_abstract_mesh(INNER):\n        pass\n"


def test_a_function_run_only_inside_such_blocks_is_a_test_of_the_error(
    tmp_path: Path,
) -> None:
    tested = "with self.assertRaises(ValueError):\n    stage()\n"
    assert expected(tmp_path, HEADER + HELPER + in_test(tested)[len(HEADER) :]) == [
        True
    ]
    untested = tested + "stage()\n"
    assert expected(tmp_path, HEADER + HELPER + in_test(untested)[len(HEADER) :]) == [
        False
    ]


def test_jitted_runs_and_methods_are_runs_too(tmp_path: Path) -> None:
    source = HEADER + (
        "import jax\n" + HELPER + "class T(unittest.TestCase):\n"
        "    def _enter(self):\n"
        "        with use_abstract_mesh(INNER):\n            pass\n"
        "    def test_it(self):\n"
        "        with self.assertRaises(ValueError):\n"
        "            jax.jit(stage)()\n"
        "        with self.assertRaises(ValueError):\n"
        "            self._enter()\n"
    )
    assert expected(tmp_path, source) == [True, True]


def test_a_run_in_another_module_counts(tmp_path: Path) -> None:
    helpers = HEADER + HELPER
    tests = (
        "import unittest\nfrom main import stage\n"
        "class T(unittest.TestCase):\n"
        "    def test_it(self):\n"
        "        with self.assertRaises(ValueError):\n            stage()\n"
    )
    assert expected(tmp_path, helpers, {"test_main.py": tests}) == [True]
    production = "from main import stage\nstage()\n"
    assert expected(
        tmp_path, helpers, {"test_main.py": tests, "train.py": production}
    ) == [False]


@pytest.mark.parametrize(
    "definition",
    [
        # a test runner runs it by its name, outside the block
        "def test_stage():\n    with use_abstract_mesh(INNER):\n        pass\n",
        # a generator's body runs where it is iterated, not where it is called
        "def stage():\n    with use_abstract_mesh(INNER):\n        yield\n",
        # a decorator jaxfix does not see through may run it elsewhere
        "@unittest.skip('x')\ndef stage():\n    with use_abstract_mesh(INNER):\n        pass\n",
    ],
)
def test_functions_that_may_run_elsewhere_are_not(
    tmp_path: Path, definition: str
) -> None:
    name = definition.split("def ")[1].split("(")[0]
    tested = f"with self.assertRaises(ValueError):\n    {name}()\n"
    source = HEADER + definition + in_test(tested)[len(HEADER) :]
    assert expected(tmp_path, source) == [False]


def test_the_callable_form_is_not_a_block(tmp_path: Path) -> None:
    assert expected(
        tmp_path, in_test("self.assertRaises(ValueError, print, 1)\n" + SITE)
    ) == [False]


def test_a_template_with_roles_is_matched_for_any_mesh(tmp_path: Path) -> None:
    """The rule's templates name their meshes by role (`{mesh:new}`): any mesh may stand there."""
    assert any("{mesh:" in t for t in JAX002)
    manager = (
        "self.assertRaisesRegex(ValueError, r\"Got new mesh: AbstractMesh\\('x': 4\")"
    )
    assert expected(tmp_path, in_test(expecting(manager))) == [True]
    assert expected(
        tmp_path, in_test(expecting(manager)), templates=RULES["JAX003"].raises
    ) == [False]


@pytest.mark.parametrize(
    "manager",
    [
        "self.assertRaisesWithLiteralMatch(ValueError, 'x')",
        "self.assertRaisesWithPredicateMatch(ValueError, lambda e: True)",
        "self.assertRaisesRegexp(ValueError, 'x')",  # gone from Python 3.12's unittest
        "pytest.raises(ValueError)",
    ],
)
def test_a_block_expecting_an_error_enters_no_mesh(
    tmp_path: Path, manager: str
) -> None:
    """So the rule still sees the mesh around it (and reports when the block expects another
    error)."""
    main = tmp_path / "main.py"
    main.write_text(in_test(expecting(manager)))
    engine = Engine(roots=(tmp_path,), files=(main,))
    module = engine.module(main)
    assert isinstance(module, Module)
    (site,) = _sites(module)
    mesh = engine.current_mesh(module, site)
    assert isinstance(mesh, Mesh) and mesh.axis_sizes == (8, 4)


def test_a_pattern_from_the_callers_or_the_class_is_known(tmp_path: Path) -> None:
    """A parameter every caller passes the same string to, a class constant: patterns the old
    engine could not read (so it exempted the block), here matched against the message."""
    source = HEADER + (
        "class T(unittest.TestCase):\n"
        "    OTHER = 'Mismatch details'\n"
        "    def check(self, pattern):\n"
        "        with self.assertRaisesRegex(ValueError, pattern):\n"
        "            with use_abstract_mesh(INNER):\n                pass\n"
        "    def test_a(self):\n"
        "        self.check('Mismatch details')\n"
        "    def test_b(self):\n"
        "        with self.assertRaisesRegex(ValueError, self.OTHER):\n"
        "            with use_abstract_mesh(INNER):\n                pass\n"
    )
    assert expected(tmp_path, source) == [False, False]
    tested = source.replace("'Mismatch details'", "'cannot change the size'")
    assert expected(tmp_path, tested) == [True, True]


def test_each_function_is_followed_once(tmp_path: Path) -> None:
    """A helper called three times from a helper called three times ...: each function's runs
    are looked up once, not once per path to it."""
    source = HEADER + "def f0():\n    with use_abstract_mesh(INNER):\n        pass\n"
    for i in range(1, 5):
        source += f"def f{i}():\n" + f"    f{i - 1}()\n" * 3
    source += (
        "class T(unittest.TestCase):\n    def check(self):\n"
        "        with self.assertRaises(ValueError):\n            f4()\n"
    )
    main = tmp_path / "main.py"
    main.write_text(source)
    engine = Engine(roots=(tmp_path,), files=(main,))
    module = engine.module(main)
    assert isinstance(module, Module)
    asked: list[str] = []
    calls_running = engine.contexts.calls_running

    def counted(
        where: Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> object:
        asked.append(function.name)
        return calls_running(where, function)

    engine.contexts.calls_running = counted  # type: ignore[method-assign,assignment]
    (site,) = _sites(module)
    assert ExpectedErrors(engine, module).expects(site, JAX002)
    assert sorted(asked) == ["f0", "f1", "f2", "f3", "f4"]
