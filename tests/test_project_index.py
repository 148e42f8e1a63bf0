"""The project index: values and definitions reached through imports of other modules of the tree."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from jaxfix.analysis import project as project_module
from jaxfix.analysis.module import ModuleAnalysis, new_project_index
from jaxfix.analysis.project import ProjectIndex
from jaxfix.analysis.values import MeshValue, Unknown
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper

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


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def analysis_of(
    path: Path, project: ProjectIndex | None = None
) -> tuple[ModuleAnalysis, cst.Module]:
    module = cst.parse_module(path.read_bytes())
    wrapper = ModuleLevelBatchWrapper(module, unsafe_skip_copy=True)
    return ModuleAnalysis(
        wrapper, (0, 10, 2), path=path, project=project or new_project_index()
    ), module


def value(path: Path, project: ProjectIndex | None = None):
    """The value of the last statement's expression in the module at `path`."""
    analysis, module = analysis_of(path, project)
    return analysis.value_of(module.body[-1].body[0].value)


def shape(found) -> tuple | None:
    return (
        (found.axis_sizes, found.axis_names) if isinstance(found, MeshValue) else None
    )


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
            "from jax.sharding import AbstractMesh\nfrom app.meshes import DP\nx = AbstractMesh((DP * 2, 1), ('a', 'b'))",
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
            "from jax.sharding import AbstractMesh\nfrom app.meshes import SIZES, NAMES\nx = AbstractMesh(SIZES, NAMES)",
            ((8, 1), ("data", "model")),
        ),
    ],
)
def test_values_reached_through_imports(tree, module, code, expected):
    write(tree, {module: code})
    assert shape(value(tree / module)) == expected


def test_reexport_from_package_init(tree):
    write(
        tree,
        {
            "app/__init__.py": "from .meshes import TRAIN_MESH\n",
            "main.py": "import app\nx = app.TRAIN_MESH",
        },
    )
    assert shape(value(tree / "main.py")) == MESH_84


@pytest.mark.parametrize(
    "name, why",
    [
        ("REBOUND", "bound more than once"),
        ("CONDITIONAL", "conditionally"),
        ("GUARDED", "conditionally"),
        ("LATER", "bound more than once"),  # `global LATER` in a function rebinds it
        ("MISSING", "not defined"),
    ],
)
def test_names_that_stay_unknown(tree, name, why):
    write(tree, {"main.py": f"from app.meshes import {name}\nx = {name}"})
    found = value(tree / "main.py")
    assert isinstance(found, Unknown) and why in found.why


def test_a_name_the_importer_rebinds_stays_unknown(tree):
    write(
        tree, {"main.py": "from app.meshes import DP\nif input():\n    DP = 8\nx = DP"}
    )
    assert isinstance(value(tree / "main.py"), Unknown)


def test_star_import_in_the_defining_module_stays_unknown(tree):
    write(
        tree,
        {
            "app/star.py": "from os.path import *\nDP = 4\n",
            "main.py": "from app.star import DP\nx = DP",
        },
    )
    found = value(tree / "main.py")
    assert isinstance(found, Unknown) and "import *" in found.why


def test_modules_outside_the_tree_are_unknown(tree):
    write(
        tree,
        {
            "main.py": "from numpy import pi\nx = pi",
            "app/up.py": "from ... import meshes\nx = meshes.DP",
        },
    )
    assert isinstance(value(tree / "main.py"), Unknown)
    found = value(tree / "app/up.py")
    assert isinstance(found, Unknown) and "above the top-level package" in found.why


def test_import_cycle_and_unparsable_module_are_unknown(tree):
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
        found = value(tree / "main.py")
        assert isinstance(found, Unknown) and why in found.why, (source, found)


def test_no_project_index_keeps_imports_unknown(tree):
    write(tree, {"main.py": "from app.meshes import DP\nx = DP"})
    module = cst.parse_module((tree / "main.py").read_bytes())
    analysis = ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), (0, 10, 2)
    )
    assert isinstance(analysis.value_of(module.body[-1].body[0].value), Unknown)


def test_namespace_packages_resolve_below_a_root(tmp_path):
    write(
        tmp_path,
        {
            "src/lib/meshes.py": "DP = 4\n",
            "src/lib/train.py": "from .meshes import DP\nx = DP",
            "tools/run.py": "from lib.meshes import DP\nx = DP",
        },
    )
    assert isinstance(
        value(tmp_path / "src/lib/train.py"), Unknown
    )  # no root given: not a package
    project = new_project_index((tmp_path,))
    assert value(tmp_path / "src/lib/train.py", project) == 4
    assert value(tmp_path / "tools/run.py", project) == 4  # found in <root>/src


def test_external_definition_and_dependencies(tree):
    write(
        tree,
        {
            "app/helpers.py": "from .meshes import make_mesh\n",
            "main.py": "from app import helpers\nhelpers.make_mesh",
        },
    )
    analysis, module = analysis_of(tree / "main.py")
    assert analysis.dependencies == frozenset()  # lazy: nothing read before a question
    found = analysis.external_definition(module.body[-1].body[0].value)
    assert (
        isinstance(found.node, cst.FunctionDef) and found.node.name.value == "make_mesh"
    )
    assert found.path == (tree / "app/meshes.py").resolve()
    assert (
        found.analysis.value_of(found.analysis.wrapper.module.body[1].body[0].value)
        == 4
    )  # DP = 4 there
    app = (tree / "app").resolve()
    assert analysis.dependencies == {
        app / "__init__.py",
        app / "helpers.py",
        app / "meshes.py",
    }


def test_edits_are_seen_by_a_reused_index(tree):
    project = new_project_index()
    write(tree, {"main.py": "from app.meshes import DP\nx = DP"})
    assert value(tree / "main.py", project) == 4
    write(tree, {"app/meshes.py": MESHES.replace("DP = 4", "DP = 16") + "\n"})
    assert value(tree / "main.py", project) == 16


def test_large_modules_pass_names_on_but_are_not_analysed(tree):
    padding = "# padding\n" * (
        project_module._ANALYSED_SOURCE_BYTES // 10 + 1
    )  # just over the limit
    write(
        tree,
        {
            "app/big.py": "from .meshes import DP\nLARGE = 4\n" + padding,
            "main.py": "from app.big import DP, LARGE\nx = (DP, LARGE)",
        },
    )
    dp, large = value(tree / "main.py")
    assert dp == 4  # re-exported through the large module's `ast` summary
    assert isinstance(large, Unknown) and "too large" in large.why


def test_a_mesh_returned_by_a_function_carries_no_name_of_the_function(tree):
    """Fixes spell a mesh by the name it was reached through: `m` inside the function means
    nothing where the call is; `meshes.TRAIN_MESH` is this module's own spelling."""
    write(
        tree,
        {
            "main.py": (
                "import jax\nfrom app import meshes\n\n\ndef context_mesh():\n    m = jax.make_mesh((4, 2), ('x', 'y'))\n    return m\n\n\n"
                "x = (context_mesh(), meshes.make_mesh(2), meshes.TRAIN_MESH)"
            )
        },
    )
    local, factory, constant = value(tree / "main.py")
    assert (local.name, factory.name, constant.name) == (
        None,
        None,
        "meshes.TRAIN_MESH",
    )
    assert shape(local) == ((4, 2), ("x", "y"))
