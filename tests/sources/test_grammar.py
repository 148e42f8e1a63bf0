"""Code in a newer Python's grammar than the running one's (jaxfix/sources/grammar.py): `ast` cannot
read it, yet it is not a syntax error. The file gets one line naming the Python it needs and
is not checked; answers that would read it are Unknown, never a crash; other modules are
answered as before."""

from __future__ import annotations

import ast
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import options_from_args
from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import Mesh, Unknown
from jaxfix.check.engine import check_file
from jaxfix.check.run import Run
from jaxfix.cli.main import cli
from jaxfix.ground.diagnostics import FileResult, Location
from jaxfix.sources.grammar import Blanked, readable
from jaxfix.sources.syntax import newer_grammar, syntax_error
from snippets import CALL, FIXED, FIXED_CALL, VIOLATION

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


# Valid in Python 3.14 only (PEP 758), a construct jaxfix does not blank for `ast`.
EXCEPT_WITHOUT_PARENTHESES = (
    b"try:\n    pass\nexcept ValueError, TypeError:\n    pass\n"
)


@pytest.mark.parametrize(
    "source",
    [
        CORE,
        b"type Axes = tuple[str, ...]\n",
        b"type Pair[T] = tuple[T, T]\n",
        b"def first[T](items: list[T]) -> T:\n    return items[0]\n",
        b'name = "x"\ntext = f"{"nested"}"\n',
        b"text = f'{'\\n'.join(lines)}'\n",
        b'text = f"{\n"a field over two lines"}"\n',
        "# -*- coding: latin-1 -*-\n\nclass Größe[T]:\r\n    pass\r\n".encode(
            "latin-1"
        ),
    ],
)
def test_python_3_12_code_is_read_and_checked(source):
    assert syntax_error(source) is None  # not the user's error
    assert newer_grammar(source) is None  # not a file left unchecked
    with pytest.raises(SyntaxError) as rejected:
        ast.parse(source)
    assert isinstance(readable(source, rejected.value), Blanked)


@pytest.mark.parametrize(
    ("source", "python", "line"),
    [
        (EXCEPT_WITHOUT_PARENTHESES, "3.14", 3),
        (CORE + EXCEPT_WITHOUT_PARENTHESES, "3.14", 14),  # past the 3.12 construct
    ],
)
def test_code_not_read_is_one_line_naming_the_python_it_needs(source, python, line):
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


def test_the_file_itself_is_read_with_its_type_parameters_blanked(tree):
    found = _engine(tree).begin(tree / "pkg" / "core.py")
    assert isinstance(found, Module)
    (region,) = found.blanked
    assert region.start == (6, 12) and region.end == (6, 31)  # `[TraceType: object]`
    assert "PEP 695" in region.what


def test_an_import_of_it_is_answered_and_the_rest_of_the_module_too(tree):
    engine = _engine(tree)
    module = engine.begin(tree / "pkg" / "train.py")
    assert isinstance(module, Module)
    (imported,) = _values(engine, module, {"MESH"})
    assert isinstance(imported, Mesh) and imported.axis_sizes == (4,)
    (other,) = _values(engine, module, {"make_mesh"})
    assert isinstance(other, Mesh) and other.axis_sizes == (8,)


def test_a_file_in_a_grammar_not_blanked_is_unknown_and_so_is_an_import_of_it(tree):
    (tree / "pkg" / "core.py").write_bytes(CORE + EXCEPT_WITHOUT_PARENTHESES)
    engine = _engine(tree)
    found = engine.begin(tree / "pkg" / "core.py")
    assert isinstance(found, Unknown)
    assert "needs Python 3.14's grammar" in found.why and "line 14" in found.why
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


# A JAX001 site among Python 3.12 code, one of it on the site's own line (the columns after a
# blanked `type` statement, non-ASCII, stay the file's).
PEP_695 = VIOLATION.replace(
    "mesh = ",
    "type Shape[T] = tuple[T, ...]\n\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n\n\n"
    'class Box[T: object]:\n    label = f"{"box"}"\n\n\nmesh = ',
).replace("lowered = ", "type Größe[T] = tuple[T]; lowered = ")


def _process(source: str) -> FileResult:
    options = replace(options_from_args([]), line_length=1000)
    return check_file(Run(options), Path("example.py"), source.encode())


def test_a_site_in_python_3_12_code_is_reported_and_fixed_and_the_rest_kept():
    result = _process(PEP_695)
    assert result.error is None, result.error
    (diagnostic,) = result.diagnostics
    line = PEP_695.splitlines().index(
        next(text for text in PEP_695.splitlines() if CALL in text)
    )
    assert diagnostic.code == "JAX001"
    assert diagnostic.start == Location(
        line + 1, PEP_695.splitlines()[line].index(CALL) + 1
    )
    assert result.fixed == PEP_695.replace(CALL, FIXED_CALL).encode()


def test_python_3_12_code_without_a_site_is_left_alone():
    result = _process(PEP_695.replace(".lower(x)", ".trace(x)"))
    assert result.error is None and result.fixed is None and not result.diagnostics


def test_a_fix_that_would_rewrite_python_3_12_code_is_one_line(tmp_path):
    # The lowered function holds an f-string Python 3.11 rejects: the fix rewrites that call.
    source = VIOLATION.replace("jnp.sin)", 'lambda v: v * len(f"{"ab"}"))').encode()
    (tmp_path / "nested.py").write_bytes(source)
    (tmp_path / "plain.py").write_text(VIOLATION)
    result = CliRunner().invoke(cli, ["--no-cache", str(tmp_path)])
    assert result.exit_code == 2
    (line,) = [text for text in result.stderr.splitlines() if "nested.py" in text]
    assert line.endswith(
        "nested.py:7:11: error: not fixed: the fix at line 7 would rewrite code in Python "
        "3.12's grammar (an f-string nesting quotes, backslashes or comments, PEP 701), which "
        "jaxfix, on Python 3.11, does not read; run jaxfix with Python 3.12 or newer to fix it"
    )
    assert (tmp_path / "nested.py").read_bytes() == source
    assert (tmp_path / "plain.py").read_text() == FIXED


def test_a_source_read_again_is_blanked_once_and_parsed_into_a_new_tree(monkeypatch):
    """A module a run reaches again is read from its remembered blanked text: the f-strings
    are not looked for with LibCST again; each read gets its own tree, as the first did."""
    from jaxfix.sources import grammar

    source = b'name = "x"\ntext = f"{"nested"}"  # read again\n'
    looked_for = []
    original = grammar._blank_f_strings
    monkeypatch.setattr(
        grammar,
        "_blank_f_strings",
        lambda *args: looked_for.append(1) or original(*args),
    )
    reads = []
    for _ in range(2):
        try:
            ast.parse(source)
        except SyntaxError as error:
            reads.append(readable(source, error))
    first, second = reads
    assert isinstance(first, Blanked) and isinstance(second, Blanked)
    assert looked_for == [1]
    assert first.tree is not second.tree
    assert ast.dump(first.tree, include_attributes=True) == ast.dump(
        second.tree, include_attributes=True
    )
    assert first.regions == second.regions and first.text == second.text
    changed = source.replace(b"nested", b"other")
    try:
        ast.parse(changed)
    except SyntaxError as error:
        assert isinstance(readable(changed, error), Blanked)
    assert looked_for == [1, 1]
