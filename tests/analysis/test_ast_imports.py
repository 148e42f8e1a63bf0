"""Values and definitions the `ast` engine reaches through imports of other modules of the
tree (ported from the LibCST engine's tests/test_project_index.py: the same trees, the same
questions)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from ast_programs import last_expr, of_file, shape, write
from jaxfix.analysis.ast_engine import Engine, evaluate
from jaxfix.analysis.ast_engine.project import _MAX_SOURCE_BYTES, Module
from jaxfix.analysis.ast_engine.values import External, Function, Unknown, Value

MESHES = """\
from jax.sharding import AbstractMesh

DP = 4
TP = DP // 2
TRAIN_MESH = AbstractMesh((DP, TP), ("data", "model"))
SIZES, NAMES = (8, 1), ("data", "model")
REBOUND = 2
REBOUND = 8
if DP:
    CONDITIONAL = 2
try:
    GUARDED = 2
except ImportError:
    pass


def make_mesh(dp, tp=2):
    return AbstractMesh((dp, tp), ("data", "model"))


def rebinds_global():
    global LATER
    LATER = 4


LATER = 2
"""


def value(path: Path, roots: tuple[Path, ...] | None = None) -> Value:
    """The value of the last statement's expression in the module at `path` (imports looked
    for from the file's own place, and below `roots`)."""
    engine, module = of_file(path, roots if roots is not None else (path.parent,))
    return engine.value_of(module, last_expr(module))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(
        tmp_path,
        {"app/__init__.py": "", "app/meshes.py": MESHES, "app/sub/__init__.py": ""},
    )
    return tmp_path


MESH_84 = ((4, 2), ("data", "model"))


@pytest.mark.parametrize(
    "module, code, expected",
    [
        ("app/train.py", "from .meshes import TRAIN_MESH\nx = TRAIN_MESH", MESH_84),
        ("app/train.py", "from .meshes import TRAIN_MESH as M\nx = M", MESH_84),
        ("app/train.py", "from . import meshes\nx = meshes.TRAIN_MESH", MESH_84),
        (
            "app/sub/train.py",
            "from ..meshes import TRAIN_MESH\nx = TRAIN_MESH",
            MESH_84,
        ),
        ("app/sub/train.py", "from .. import meshes\nx = meshes.TRAIN_MESH", MESH_84),
        (
            "app/sub/train.py",
            "from app.meshes import TRAIN_MESH\nx = TRAIN_MESH",
            MESH_84,
        ),
        (
            "app/sub/train.py",
            "import app.meshes\nimport app.sub\nx = app.meshes.TRAIN_MESH",
            MESH_84,
        ),
        ("app/sub/train.py", "import app.meshes as m\nx = m.TRAIN_MESH", MESH_84),
        ("main.py", "from app.meshes import TRAIN_MESH\nx = TRAIN_MESH", MESH_84),
        ("main.py", "from app import meshes\nx = meshes.TRAIN_MESH", MESH_84),
        # a constant used in a mesh built locally; a factory with the caller's values bound
        (
            "main.py",
            "from jax.sharding import AbstractMesh\nfrom app.meshes import DP\n"
            "x = AbstractMesh((DP * 2, 1), ('a', 'b'))",
            ((8, 1), ("a", "b")),
        ),
        (
            "main.py",
            "from app.meshes import make_mesh\nn = 8\nx = make_mesh(n)",
            ((8, 2), ("data", "model")),
        ),
        (
            "main.py",
            "from app import meshes\nx = meshes.make_mesh(2, tp=meshes.DP)",
            ((2, 4), ("data", "model")),
        ),
        (
            "main.py",
            "from jax.sharding import AbstractMesh\nfrom app.meshes import SIZES, NAMES\n"
            "x = AbstractMesh(SIZES, NAMES)",
            ((8, 1), ("data", "model")),
        ),
    ],
)
def test_values_reached_through_imports(
    tree: Path, module: str, code: str, expected: object
) -> None:
    write(tree, {module: code})
    assert shape(value(tree / module, (tree,))) == expected


def test_reexport_from_package_init(tree: Path) -> None:
    write(
        tree,
        {
            "app/__init__.py": "from .meshes import TRAIN_MESH\n",
            "main.py": "import app\nx = app.TRAIN_MESH",
        },
    )
    assert shape(value(tree / "main.py", (tree,))) == MESH_84


@pytest.mark.parametrize(
    "name, expected",
    [
        # The LibCST engine made a name bound twice at module level Unknown; the new flow
        # knows the binding that reaches the module's end
        ("REBOUND", 8),
        ("CONDITIONAL", 2),  # `if DP:` with DP = 4: the new engine decides the test
        # unbound when the `try` body raised (then importing it raises): 2 wherever the
        # import succeeds (the LibCST engine: Unknown, "conditionally")
        ("GUARDED", 2),
        ("LATER", Unknown),  # `global LATER` in a function rebinds it
        ("MISSING", Unknown),
    ],
)
def test_names_bound_more_than_once_or_conditionally(
    tree: Path, name: str, expected: object
) -> None:
    write(tree, {"main.py": f"from app.meshes import {name}\nx = {name}"})
    found = value(tree / "main.py", (tree,))
    assert isinstance(found, Unknown) if expected is Unknown else found == expected


def test_a_name_the_importer_rebinds_stays_unknown(tree: Path) -> None:
    write(
        tree, {"main.py": "from app.meshes import DP\nif input():\n    DP = 8\nx = DP"}
    )
    assert isinstance(value(tree / "main.py", (tree,)), Unknown)


def test_star_import_in_the_defining_module_stays_unknown(tree: Path) -> None:
    write(
        tree,
        {
            "app/star.py": "from os.path import *\nDP = 4\n",
            "app/star_after.py": "DP = 4\nfrom os.path import *\n",
            "main.py": "from app.star import DP\nx = DP",
            "after.py": "from app.star_after import DP\nx = DP",
        },
    )
    # `DP = 4` after a star import rebinds whatever it bound (the LibCST engine: Unknown);
    # a star import after it may rebind it
    assert value(tree / "main.py", (tree,)) == 4
    found = value(tree / "after.py", (tree,))
    assert isinstance(found, Unknown) and "star import" in found.why, found


def test_modules_outside_the_tree_are_unknown(tree: Path) -> None:
    write(
        tree,
        {
            "main.py": "from numpy import pi\nx = pi",
            "app/up.py": "from ... import meshes\nx = meshes.DP",
        },
    )
    # named by its qualified name, never a value of the tree
    assert value(tree / "main.py", (tree,)) == External("numpy.pi")
    found = value(tree / "app/up.py", (tree,))
    assert isinstance(found, Unknown) and "above the top-level package" in found.why


def test_import_cycle_and_unparsable_module_are_unknown(tree: Path) -> None:
    write(
        tree,
        {
            "app/a.py": "from .b import X\n",
            "app/b.py": "from .a import X\n",
            "app/broken.py": "X = (\n",
            "app/loop.py": "from . import loop2\nX = loop2.Y\n",
            "app/loop2.py": "from . import loop\nY = loop.X\n",
        },
    )
    for source, why in [
        ("a", "cycle"),
        ("broken", "does not parse"),
        ("loop", "cycle"),
    ]:
        write(tree, {"main.py": f"from app.{source} import X\nx = X"})
        found = value(tree / "main.py", (tree,))
        assert isinstance(found, Unknown) and why in found.why, (source, found)


def test_names_resolve_through_import_cycles_where_no_import_time_code_decides(
    tmp_path: Path,
) -> None:
    """A function body reads a module's names after every import has finished: through a
    cycle, a submodule the package binds only by importing it (`from pkg import config` in
    pkg/__init__.py, and in the modules it imports) is that submodule, and a function
    defined once at a module's top is that function. A cycle of values stays Unknown (here
    through a package that binds a submodule's name to another submodule)."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg import config\n"
            "from pkg import meshes\n"
            "if config.ABSTRACT:\n"
            "    from pkg.meshes import make as make_mesh\n",
            "pkg/config.py": "ABSTRACT = True\nSHAPE = (4, 2)\n",
            "pkg/meshes.py": "from pkg import config\n"
            "import pkg\n"
            "def make():\n"
            "    return config.SHAPE\n"
            "def again():\n"
            "    return pkg.make_mesh()\n",
            "other/__init__.py": "from other import config\n"
            "from other import serving as config\n",
            "other/config.py": "SHAPE = (4, 2)\n",
            "other/serving.py": "from other import config\nSHAPE = config.SHAPE\n",
        },
    )
    for source, expected in [
        ("import pkg\nx = pkg.make_mesh()", (4, 2)),
        ("from pkg import meshes\nx = meshes.again()", (4, 2)),
        ("from pkg import config\nx = config.SHAPE", (4, 2)),
    ]:
        write(tmp_path, {"main.py": source})
        assert value(tmp_path / "main.py", (tmp_path,)) == expected, source
    write(tmp_path, {"main.py": "from other import serving\nx = serving.SHAPE"})
    found = value(tmp_path / "main.py", (tmp_path,))
    assert isinstance(found, Unknown) and "cycle" in found.why, found


def test_a_parameter_takes_what_callers_through_a_package_re_export_pass(
    tmp_path: Path,
) -> None:
    """`pkg.f(x)`, where pkg/__init__.py re-exports `f` from a submodule the caller never
    names, is one of `f`'s calls: looked for in the modules naming the package."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.stages import scale\n",
            "pkg/stages.py": "def scale(shape):\n    return shape\n",
            "main.py": "import pkg\npkg.scale((4, 2))\n",
            "other.py": "from pkg import scale\nscale((8, 2))\n",
        },
    )
    engine, module = of_file(tmp_path / "pkg/stages.py", (tmp_path,))
    function = module.tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    returned = function.body[0]
    assert isinstance(returned, ast.Return) and returned.value is not None
    found = engine.value_of(module, returned.value)
    assert isinstance(found, Unknown) and "different" in found.why, found
    write(tmp_path, {"other.py": "from pkg import scale\nscale((4, 2))\n"})
    engine, module = of_file(tmp_path / "pkg/stages.py", (tmp_path,))
    function = module.tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    returned = function.body[0]
    assert isinstance(returned, ast.Return) and returned.value is not None
    assert engine.value_of(module, returned.value) == (4, 2)


def _returned_by_scale(root: Path) -> Value:
    engine, module = of_file(root / "pkg/stages.py", (root,))
    function = module.tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    returned = function.body[0]
    assert isinstance(returned, ast.Return) and returned.value is not None
    return engine.value_of(module, returned.value)


def test_callers_are_looked_for_only_where_an_import_brings_the_function(
    tmp_path: Path,
) -> None:
    """A module holding the function's name and its module's name only as words (a
    parameter, a comment) cannot call it: it is not a caller that may be it. A module
    importing it relatively, or importing the package above it, is looked into."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/stages.py": "def scale(shape):\n    return shape\n",
            "main.py": "from pkg.stages import scale\nscale((4, 2))\n",
            "tools/notes.py": "def run(stages, scale):\n    return scale(stages)\n",
        },
    )
    assert _returned_by_scale(tmp_path) == (4, 2)
    write(
        tmp_path,
        {"pkg/other.py": "from .stages import scale\nscale((8, 2))\n"},
    )
    found = _returned_by_scale(tmp_path)
    assert isinstance(found, Unknown) and "different" in found.why, found
    (tmp_path / "pkg/other.py").unlink()
    write(
        tmp_path,
        {
            "tools/notes.py": "import pkg\n\ndef run(stages):\n    pkg.stages.scale(stages)\n"
        },
    )
    found = _returned_by_scale(tmp_path)
    assert isinstance(found, Unknown), found


def test_a_read_that_costs_more_than_its_bound_may_be_the_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Learning whether a read in another module is the function evaluates a bounded number
    of expressions; past the bound its callers are not known (never a partial list)."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/stages.py": "def scale(shape):\n    return shape\n",
            "main.py": "from pkg import stages\nstages.scale((4, 2))\n",
        },
    )
    assert _returned_by_scale(tmp_path) == (4, 2)
    monkeypatch.setattr(evaluate, "_MAX_STEPS_PER_READ", 1)
    found = _returned_by_scale(tmp_path)
    assert isinstance(found, Unknown) and "may be it" in found.why, found


def test_a_config_object_read_by_many_modules_and_changed_by_none_is_known(
    tmp_path: Path,
) -> None:
    """More modules than a function's callers are looked for in may read a config module's
    object: each is looked into, and none changing it leaves its value known; one that
    sets an attribute of it makes it Unknown, naming the place."""
    files = {
        "pkg/__init__.py": "",
        "pkg/config.py": "class Config:\n"
        "    def __init__(self, shape):\n"
        "        self.shape = shape\n"
        "CONFIG = Config((4, 2))\n",
        "main.py": "from pkg.config import CONFIG\nx = CONFIG.shape",
    }
    for index in range(6):
        files[f"pkg/reader{index}.py"] = (
            "from pkg.config import CONFIG\ndef show():\n    return str(CONFIG.shape)\n"
        )
    write(tmp_path, files)
    assert value(tmp_path / "main.py", (tmp_path,)) == (4, 2)
    write(
        tmp_path,
        {"pkg/cli.py": "from pkg.config import CONFIG\nCONFIG.shape = (8, 2)\n"},
    )
    found = value(tmp_path / "main.py", (tmp_path,))
    assert isinstance(found, Unknown) and "(cli.py:2)" in found.why, found


@pytest.mark.parametrize(
    "cli, rebinds",
    [
        ("from pkg import config\ndef main():\n    config.SHAPE = (8, 2)\n", True),
        ("import pkg.config\nsetattr(pkg.config, 'SHAPE', (8, 2))\n", True),
        (
            "def override(module):\n    module.SHAPE = (8, 2)\n"
            "from pkg import config\noverride(config)\n",
            True,
        ),
        # another object's attribute of the same name
        (
            "from pkg import config\nclass Run:\n    def __init__(self):\n"
            "        self.SHAPE = config.SHAPE\n",
            False,
        ),
    ],
)
def test_a_module_constant_another_module_rebinds_is_unknown(
    tmp_path: Path, cli: str, rebinds: bool
) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": "SHAPE = (4, 2)\n",
            "pkg/cli.py": cli,
            "main.py": "from pkg.config import SHAPE\nx = SHAPE",
        },
    )
    found = value(tmp_path / "main.py", (tmp_path,))
    if rebinds:
        assert isinstance(found, Unknown) and "rebound" in found.why, found
    else:
        assert found == (4, 2)


def test_namespace_packages_resolve_below_a_root(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/lib/meshes.py": "DP = 4\n",
            "src/lib/train.py": "from .meshes import DP\nx = DP",
            "tools/run.py": "from lib.meshes import DP\nx = DP",
        },
    )
    # no root given: not a package
    assert isinstance(value(tmp_path / "src/lib/train.py", ()), Unknown)
    assert value(tmp_path / "src/lib/train.py", (tmp_path,)) == 4
    assert value(tmp_path / "tools/run.py", (tmp_path,)) == 4  # found in <root>/src


def test_a_definition_reached_through_a_reexport_and_what_was_read(tree: Path) -> None:
    write(
        tree,
        {
            "app/helpers.py": "from .meshes import make_mesh\n",
            "main.py": "from app import helpers\nhelpers.make_mesh",
        },
    )
    engine, module = of_file(tree / "main.py", (tree,))
    app = (tree / "app").resolve()
    assert (
        app / "meshes.py" not in engine.project.read
    )  # lazy: nothing read before a question
    found = engine.value_of(module, last_expr(module))
    assert (
        isinstance(found, Function) and getattr(found.node, "name", "") == "make_mesh"
    )
    assert found.path == app / "meshes.py"
    defining = engine.module(found.path)
    assert isinstance(defining, Module)
    dp = defining.tree.body[1]
    assert engine.value_of(defining, dp.value) == 4  # type: ignore[attr-defined]
    assert {app / "__init__.py", app / "helpers.py", app / "meshes.py"} <= (
        engine.project.read
    )


def test_edits_are_seen_by_a_reused_engine(tree: Path) -> None:
    write(tree, {"main.py": "from app.meshes import DP\nx = DP"})
    engine = Engine(roots=(tree,), jax_version=(0, 10, 2))

    def dp() -> Value:
        module = engine.begin(
            tree / "main.py"
        )  # a module's questions, as a run asks them
        assert isinstance(module, Module)
        return engine.value_of(module, last_expr(module))

    assert dp() == 4
    write(tree, {"app/meshes.py": MESHES.replace("DP = 4", "DP = 16") + "\n"})
    assert dp() == 16


def test_a_module_too_large_to_read_is_unknown(tree: Path) -> None:
    """(The LibCST engine analysed modules up to 64 KB and passed larger ones' names on from
    an `ast` summary; the new engine reads every module up to the project's cap.)"""
    padding = "# padding\n" * (_MAX_SOURCE_BYTES // 10 + 1)  # just over the cap
    write(
        tree,
        {
            "app/big.py": "from .meshes import DP\nLARGE = 4\n" + padding,
            "app/sizeable.py": "from .meshes import DP\nLARGE = 4\n"
            + "# pad\n" * 20_000,
            "main.py": "from app.big import DP, LARGE\nx = (DP, LARGE)",
            "other.py": "from app.sizeable import DP, LARGE\nx = (DP, LARGE)",
        },
    )
    dp, large = value(tree / "main.py", (tree,))
    assert isinstance(dp, Unknown) and isinstance(large, Unknown)
    assert value(tree / "other.py", (tree,)) == (4, 4)  # 120 KB: read


def test_a_mesh_returned_by_a_function(tree: Path) -> None:
    """(The LibCST engine's meshes carried the name a fix spells them by, none for a mesh a
    function returns; the new engine's meshes carry no name: a fix spells the expression it
    asked about, as written.)"""
    write(
        tree,
        {
            "main.py": (
                "import jax\nfrom app import meshes\n\n\ndef context_mesh():\n"
                "    m = jax.make_mesh((4, 2), ('x', 'y'))\n    return m\n\n\n"
                "x = (context_mesh(), meshes.make_mesh(2), meshes.TRAIN_MESH)"
            )
        },
    )
    local, factory, constant = value(tree / "main.py", (tree,))
    assert shape(local) == ((4, 2), ("x", "y"))
    assert shape(factory) == ((2, 2), ("data", "model"))
    assert shape(constant) == MESH_84


def test_a_module_ast_cannot_parse_is_unknown() -> None:
    """`ast` parses with the running Python's grammar: a PEP 695 class is read with its type
    parameters blanked before 3.12 (jaxfix/sources/grammar.py); a PEP 758 `except` is a SyntaxError
    before 3.14, said as such; a broken file always."""
    engine = Engine(jax_version=(0, 10, 2))
    pep695 = b"import jax\nclass Box[T]:\n    pass\njax.jit(f).lower(x)\n"
    assert isinstance(engine.module(Path("/nonexistent/pep695.py"), pep695), Module)
    pep758 = b"try:\n    pass\nexcept ValueError, TypeError:\n    pass\n"
    found = engine.module(Path("/nonexistent/pep758.py"), pep758)
    if sys.version_info < (3, 14):
        assert isinstance(found, Unknown) and "needs Python 3.14" in found.why
    else:
        assert isinstance(found, Module)
    broken = engine.module(Path("/nonexistent/broken.py"), b"def f(:\n")
    assert isinstance(broken, Unknown) and "does not parse" in broken.why
