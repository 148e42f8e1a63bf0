"""The shared analysis: API resolution, the value model, the contexts in force, import spellings."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.analysis.names import Api
from jaxfix.analysis.values import AxisType, MeshKind, MeshValue
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper
from jaxfix.codemods.import_spelling import api_spelling, module_spelling


def analyze(code: str, jax_version=(0, 10, 2)) -> tuple[ModuleAnalysis, cst.Module]:
    module = cst.parse_module(textwrap.dedent(code))
    return ModuleAnalysis(
        ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), jax_version
    ), module


def last_value(module: cst.Module) -> cst.BaseExpression:
    """The expression of the module's last statement (`value` in `target = value`, or a bare expr)."""
    small = module.body[-1].body[0]
    return small.value


def mesh_of(code: str, jax_version=(0, 10, 2)):
    """The mesh the last statement's value evaluates to, or None when it is not a known mesh."""
    analysis, module = analyze(code, jax_version)
    value = analysis.value_of(last_value(module))
    return value if isinstance(value, MeshValue) else None


HEADER = "import jax\nfrom jax.sharding import AbstractMesh, AxisType, Mesh\n"


@pytest.mark.parametrize(
    "code, sizes, names",
    [
        ("m = AbstractMesh((8, 4), ('data', 'model'))", (8, 4), ("data", "model")),
        ("m = AbstractMesh(axis_names=('a',), axis_sizes=(2,))", (2,), ("a",)),
        (
            "DATA = 8\nMODEL = DATA // 2\nm = AbstractMesh((DATA, MODEL * 2 - 4), ('a', 'b'))",
            (8, 4),
            ("a", "b"),
        ),
        (
            "SIZES = (2, 2, 2)\nm = AbstractMesh(SIZES, ('a', 'b', 'c'))",
            (2, 2, 2),
            ("a", "b", "c"),
        ),
        ("m = AbstractMesh((n, 4), ('a', 'b'))", (None, 4), ("a", "b")),
        ("m = AbstractMesh((), ())", (), ()),
    ],
)
def test_abstract_mesh_shapes(code, sizes, names):
    mesh = mesh_of(HEADER + code)
    assert (
        mesh.kind is MeshKind.ABSTRACT
        and mesh.axis_sizes == sizes
        and mesh.axis_names == names
    )


def test_size_and_emptiness():
    assert mesh_of(HEADER + "m = AbstractMesh((8, 4), ('a', 'b'))").size == 32
    assert mesh_of(HEADER + "m = AbstractMesh((n, 4), ('a', 'b'))").size is None
    assert mesh_of(HEADER + "m = AbstractMesh((), ())").is_empty


def test_axis_types_default_by_jax_version_and_explicit_forms():
    code = HEADER + "m = AbstractMesh((2, 4), ('a', 'b'))"
    auto, explicit = AxisType.AUTO, AxisType.EXPLICIT
    assert mesh_of(code, (0, 10, 2)).axis_types == (auto, auto)
    assert mesh_of(code, (0, 12, 0, 1)).axis_types == (explicit, explicit)
    assert mesh_of(code, None).axis_types == (
        explicit,
        explicit,
    )  # unknown version: newest
    repeated = (
        HEADER
        + "m = AbstractMesh((2, 4), ('a', 'b'), axis_types=(AxisType.Explicit,) * 2)"
    )
    assert mesh_of(repeated).axis_types == (explicit, explicit)
    aliased = "import jax.sharding as shd\nm = shd.AbstractMesh((2,), ('a',), (shd.AxisType.Manual,))"
    assert mesh_of(aliased).axis_types == (AxisType.MANUAL,)
    unknown = HEADER + "m = AbstractMesh((2,), ('a',), axis_types=types)"
    assert mesh_of(unknown).axis_types is None


def test_concrete_meshes_and_their_abstract_view():
    made = mesh_of(HEADER + "m = jax.make_mesh((2, 4), ('a', 'b'))")
    assert (
        made.kind is MeshKind.CONCRETE
        and made.axis_sizes == (2, 4)
        and made.axis_types == (AxisType.EXPLICIT,) * 2
    )
    legacy = mesh_of(HEADER + "m = Mesh(devices, ('a', 'b'))")
    assert (
        legacy.kind is MeshKind.CONCRETE
        and legacy.axis_sizes is None
        and legacy.axis_types == (AxisType.AUTO,) * 2
    )
    view = mesh_of(
        HEADER + "c = jax.make_mesh((2, 4), ('a', 'b'))\nm = c.abstract_mesh"
    )
    assert (
        view.kind is MeshKind.ABSTRACT
        and view.has_abstract_device
        and view.axis_sizes == (2, 4)
    )


def test_update_and_abstract_device():
    updated = mesh_of(
        HEADER + "a = AbstractMesh((2, 4), ('x', 'y'))\nm = a.update(axis_sizes=(4, 4))"
    )
    assert updated.axis_sizes == (4, 4) and updated.axis_names == ("x", "y")
    assert mesh_of(
        HEADER + "m = AbstractMesh((2,), ('x',), abstract_device=dev)"
    ).has_abstract_device
    assert not mesh_of(
        HEADER + "m = AbstractMesh((2,), ('x',), abstract_device=None)"
    ).has_abstract_device


def test_names_follow_their_bindings():
    mesh = mesh_of(HEADER + "first = AbstractMesh((2,), ('x',))\nm = first")
    assert mesh.axis_sizes == (2,) and mesh.name == "first"
    rebound = (
        HEADER + "m = AbstractMesh((2,), ('x',))\nm = AbstractMesh((4,), ('x',))\nm"
    )
    assert mesh_of(rebound).axis_sizes == (4,)  # the later of two statements in a row
    branches = (
        HEADER
        + "if c:\n    m = AbstractMesh((2,), ('x',))\nelse:\n    m = AbstractMesh((4,), ('x',))\nm"
    )
    assert mesh_of(branches) is None
    assert mesh_of(HEADER + "def f(m):\n    return m\nm") is None


def test_self_attribute_bound_in_init():
    code = HEADER + textwrap.dedent(
        """
        class Model:
            def __init__(self):
                self.mesh = AbstractMesh((8,), ("x",))

            def run(self):
                return self.mesh
        """
    )
    analysis, module = analyze(code)
    method = module.body[-1].body.body[1]
    expr = method.body.body[0].body[0].value
    mesh = analysis.value_of(expr)
    assert mesh.axis_sizes == (8,) and mesh.name == "self.mesh"


def test_mesh_equality_is_by_value_and_unknown_stays_unknown():
    a = mesh_of(HEADER + "m = AbstractMesh((2, 4), ('x', 'y'))")
    b = mesh_of(HEADER + "m = AbstractMesh((2, 4), ('x', 'y'))")
    c = mesh_of(HEADER + "m = AbstractMesh((4, 2), ('x', 'y'))")
    d = mesh_of(HEADER + "m = AbstractMesh((n, 4), ('x', 'y'))")
    assert a.equals(b) is True and a.equals(c) is False and a.equals(d) is None
    with_device = mesh_of(
        HEADER + "m = AbstractMesh((2, 4), ('x', 'y'), abstract_device=dev)"
    )
    assert a.equals(with_device) is False  # JAX compares the abstract device too


def test_import_spellings():
    module = cst.parse_module(
        "import jax as jx\nfrom jax.sharding import NamedSharding as NS\n"
    )
    assert module_spelling(module, "jax") == ("jx", ())
    assert api_spelling(module, Api.NAMED_SHARDING, "jax.sharding") == ("NS", ())
    bare = cst.parse_module("import jax.numpy as jnp\n")
    assert module_spelling(bare, "jax") == ("jax", (("jax", None),))
    assert api_spelling(bare, Api.NAMED_SHARDING, "jax.sharding") == (
        "NamedSharding",
        (("jax.sharding", "NamedSharding"),),
    )
    assert module_spelling(cst.parse_module("import jax.sharding\n"), "jax") == (
        "jax",
        (),
    )


NUMPY = HEADER + "import numpy as np\nfrom jax.experimental import mesh_utils\n"


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
def test_mesh_sizes_from_the_shape_of_its_devices(code, sizes):
    mesh = mesh_of(NUMPY + code)
    assert (
        mesh.kind is MeshKind.CONCRETE
        and mesh.axis_sizes == sizes
        and mesh.axis_types == (AxisType.AUTO,) * len(sizes)
    )


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
        "m = Mesh(AbstractMesh((2, 4), ('a', 'b')).devices, ('a', 'b'))",  # an AbstractMesh has no devices
    ],
)
def test_mesh_sizes_jaxfix_cannot_know(code):
    mesh = mesh_of(NUMPY + code)
    assert mesh is None or mesh.axis_sizes is None


def test_mesh_axis_types_and_update_of_a_concrete_mesh():
    explicit = mesh_of(
        NUMPY
        + "m = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'), axis_types=(AxisType.Explicit,) * 2)"
    )
    assert explicit.axis_types == (AxisType.EXPLICIT,) * 2
    default = NUMPY + "m = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))"
    assert (
        mesh_of(default, (0, 12, 0, 1)).axis_types == (AxisType.AUTO,) * 2
    )  # Auto on both tiers, unlike AbstractMesh
    placed = mesh_of(
        NUMPY + "m = jax.make_mesh((2, 2), ('a', 'b'), devices=jax.devices()[:4])"
    )
    assert placed.axis_sizes == (2, 2) and placed.axis_types == (AxisType.EXPLICIT,) * 2
    base = NUMPY + "c = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))\n"
    assert mesh_of(
        base + "m = c.update(devices=np.array(jax.devices()[:4]).reshape(4, 1))"
    ).axis_sizes == (4, 1)
    assert mesh_of(base + "m = c.update(axis_names=('p', 'q'))").axis_sizes == (2, 4)
    assert (
        mesh_of(base + "m = c.update((4, 1))").axis_sizes is None
    )  # Mesh.update's first parameter is devices
    assert mesh_of(
        base + "m = c.abstract_mesh.update(axis_sizes=(4, 2))"
    ).axis_sizes == (4, 2)


@pytest.mark.parametrize(
    "expression, value",
    [
        ("c.size", 8),
        ("c.shape['b']", 4),
        ("c.axis_sizes[-1]", 4),
        ("c.axis_sizes[1:]", (4,)),
        ("c.devices.shape", (2, 4)),
        ("c.devices.size * 2", 16),
        ("a.size", 8),
    ],
)
def test_what_a_known_mesh_tells_about_itself(expression, value):
    code = (
        NUMPY
        + "c = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))\na = c.abstract_mesh\n"
        + f"v = {expression}"
    )
    analysis, module = analyze(code)
    assert analysis.value_of(last_value(module)) == value


def test_numpy_apis_resolve_by_qualified_name():
    local = (
        HEADER
        + "def array(x):\n    return x\nm = Mesh(array(jax.devices()).reshape(2, 4), ('a', 'b'))"
    )
    assert (
        mesh_of(local).axis_sizes is None
    )  # a local `array` returns the list, which has no reshape
    aliased = (
        HEADER
        + "from numpy import asarray as A\nimport jax.experimental.mesh_utils as mu\n"
    )
    assert mesh_of(
        aliased + "m = Mesh(A(jax.devices()).reshape(4, 2), ('a', 'b'))"
    ).axis_sizes == (4, 2)
    assert mesh_of(
        aliased + "m = Mesh(mu.create_device_mesh((8,)), 'x')"
    ).axis_sizes == (8,)


def test_attributes_of_an_imported_mesh_and_a_project_function_named_reshape(tmp_path):
    from jaxfix.analysis.module import new_project_index

    (tmp_path / "meshes.py").write_text(
        "import jax\nimport numpy as np\nfrom jax.sharding import Mesh\n"
        "TRAIN_MESH = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ('data', 'model'))\n"
        "def reshape(x):\n    return 6\n"
    )
    main = tmp_path / "main.py"
    main.write_text(
        "import meshes\nfrom meshes import TRAIN_MESH\nsizes = (TRAIN_MESH.size, TRAIN_MESH.shape['model'], meshes.reshape(1))\n"
    )
    module = cst.parse_module(main.read_bytes())
    wrapper = ModuleLevelBatchWrapper(module, unsafe_skip_copy=True)
    analysis = ModuleAnalysis(
        wrapper, (0, 10, 2), path=main, project=new_project_index()
    )
    assert analysis.value_of(last_value(module)) == (8, 2, 6)
