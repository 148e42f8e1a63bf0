"""The meshes the `ast` engine builds: shapes, sizes, axis types by JAX version, concrete meshes
and their devices, what a known mesh tells about itself (ported from the LibCST engine's
tests/test_analysis.py: the same programs, the same questions)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ast_programs import last_expr, last_value, mesh_of, of_file, parsed, write
from jaxfix.analysis.ast_engine.values import (
    AxisType,
    Mesh,
    MeshKind,
    Unknown,
    same,
)

HEADER = "import jax\nfrom jax.sharding import AbstractMesh, AxisType, Mesh\n"
AUTO, EXPLICIT = AxisType.AUTO, AxisType.EXPLICIT


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
def test_abstract_mesh_shapes(code: str, sizes: tuple, names: tuple) -> None:
    mesh = mesh_of(HEADER + code)
    assert mesh.is_abstract and (mesh.axis_sizes, mesh.axis_names) == (sizes, names)


def test_size_and_emptiness() -> None:
    assert mesh_of(HEADER + "m = AbstractMesh((8, 4), ('a', 'b'))").size == 32
    assert mesh_of(HEADER + "m = AbstractMesh((n, 4), ('a', 'b'))").size is None
    empty = mesh_of(HEADER + "m = AbstractMesh((), ())")
    assert empty.axis_sizes == () and empty.axis_names == ()


def test_axis_types_default_by_jax_version_and_explicit_forms() -> None:
    code = HEADER + "m = AbstractMesh((2, 4), ('a', 'b'))"
    assert mesh_of(code, (0, 10, 2)).axis_types == (AUTO, AUTO)
    assert mesh_of(code, (0, 12, 0, 1)).axis_types == (EXPLICIT, EXPLICIT)
    assert mesh_of(code, None).axis_types == (EXPLICIT, EXPLICIT)  # unknown: newest
    repeated = (
        "m = AbstractMesh((2, 4), ('a', 'b'), axis_types=(AxisType.Explicit,) * 2)"
    )
    assert mesh_of(HEADER + repeated).axis_types == (EXPLICIT, EXPLICIT)
    aliased = (
        "import jax.sharding as shd\n"
        "m = shd.AbstractMesh((2,), ('a',), (shd.AxisType.Manual,))"
    )
    assert mesh_of(aliased).axis_types == (AxisType.MANUAL,)
    unknown = HEADER + "m = AbstractMesh((2,), ('a',), axis_types=types)"
    assert mesh_of(unknown).axis_types is None


def test_concrete_meshes_and_their_abstract_view() -> None:
    made = mesh_of(HEADER + "m = jax.make_mesh((2, 4), ('a', 'b'))")
    assert made.kind is MeshKind.CONCRETE and made.axis_sizes == (2, 4)
    assert made.axis_types == (EXPLICIT,) * 2
    legacy = mesh_of(HEADER + "m = Mesh(devices, ('a', 'b'))")
    assert legacy.kind is MeshKind.CONCRETE and legacy.axis_sizes is None
    assert legacy.axis_types == (AUTO,) * 2
    view = mesh_of(
        HEADER + "c = jax.make_mesh((2, 4), ('a', 'b'))\nm = c.abstract_mesh"
    )
    assert view.is_abstract and view.has_abstract_device and view.axis_sizes == (2, 4)


def test_update_and_abstract_device() -> None:
    updated = mesh_of(
        HEADER + "a = AbstractMesh((2, 4), ('x', 'y'))\nm = a.update(axis_sizes=(4, 4))"
    )
    assert updated.axis_sizes == (4, 4) and updated.axis_names == ("x", "y")
    none = mesh_of(HEADER + "m = AbstractMesh((2,), ('x',), abstract_device=None)")
    assert not none.has_abstract_device
    # The LibCST engine took any abstract_device but a literal None for a device (a guess:
    # `dev` may be None); the new engine does not know whether there is one, so not the mesh.
    device = last_value(HEADER + "m = AbstractMesh((2,), ('x',), abstract_device=dev)")
    assert isinstance(device, Unknown) and "abstract_device" in device.why


def test_names_follow_their_bindings() -> None:
    assert mesh_of(
        HEADER + "first = AbstractMesh((2,), ('x',))\nm = first"
    ).axis_sizes == (2,)
    rebound = (
        HEADER + "m = AbstractMesh((2,), ('x',))\nm = AbstractMesh((4,), ('x',))\nm"
    )
    assert mesh_of(rebound).axis_sizes == (4,)  # the later of two statements in a row
    branches = (
        HEADER + "if c:\n    m = AbstractMesh((2,), ('x',))\n"
        "else:\n    m = AbstractMesh((4,), ('x',))\nm"
    )
    assert isinstance(last_value(branches), Unknown)
    assert isinstance(last_value(HEADER + "def f(m):\n    return m\nm"), Unknown)


def test_self_attribute_bound_in_init() -> None:
    engine, module = parsed(
        HEADER
        + textwrap.dedent(
            """
            class Model:
                def __init__(self):
                    self.mesh = AbstractMesh((8,), ("x",))

                def run(self):
                    return self.mesh
            """
        )
    )
    model = module.tree.body[-1]
    run = model.body[1]
    found = engine.value_of(module, run.body[0].value)
    assert isinstance(found, Mesh) and found.axis_sizes == (8,)


def test_mesh_equality_is_by_value_and_unknown_stays_unknown() -> None:
    a = mesh_of(HEADER + "m = AbstractMesh((2, 4), ('x', 'y'))")
    b = mesh_of(HEADER + "m = AbstractMesh((2, 4), ('x', 'y'))")
    c = mesh_of(HEADER + "m = AbstractMesh((4, 2), ('x', 'y'))")
    d = mesh_of(HEADER + "m = AbstractMesh((n, 4), ('x', 'y'))")
    assert same(a, b) and not same(a, c) and not same(a, d) and not same(d, d)
    # JAX compares the abstract device too: a concrete mesh's abstract view has one
    view = mesh_of(
        HEADER
        + "m = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)"
        ".abstract_mesh"
    )
    assert view.axis_sizes == a.axis_sizes and not same(a, view)


NUMPY = HEADER + "import numpy as np\nfrom jax.experimental import mesh_utils\n"


@pytest.mark.parametrize(
    "code, sizes",
    [
        ("m = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ('a', 'b'))", (2, 4)),
        ("m = Mesh(np.asarray(jax.devices()).reshape((2, 4)), ('a', 'b'))", (2, 4)),
        # device count unknown
        ("m = Mesh(np.array(jax.devices()).reshape(-1, 2), ('a', 'b'))", (None, 2)),
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
            "c = jax.make_mesh((2, 4), ('a', 'b'))\n"
            "m = Mesh(np.array(jax.devices()).reshape(c.axis_sizes), ('a', 'b'))",
            (2, 4),
        ),
    ],
)
def test_mesh_sizes_from_the_shape_of_its_devices(code: str, sizes: tuple) -> None:
    mesh = mesh_of(NUMPY + code)
    assert mesh.kind is MeshKind.CONCRETE and mesh.axis_sizes == sizes
    assert mesh.axis_types == (AUTO,) * len(sizes)


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
        # an AbstractMesh has no devices
        "m = Mesh(AbstractMesh((2, 4), ('a', 'b')).devices, ('a', 'b'))",
    ],
)
def test_mesh_sizes_jaxfix_cannot_know(code: str) -> None:
    found = last_value(NUMPY + code)
    assert isinstance(found, Unknown) or (
        isinstance(found, Mesh) and found.axis_sizes is None
    ), found


def test_mesh_axis_types_and_update_of_a_concrete_mesh() -> None:
    explicit = mesh_of(
        NUMPY + "m = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'), "
        "axis_types=(AxisType.Explicit,) * 2)"
    )
    assert explicit.axis_types == (EXPLICIT,) * 2
    default = NUMPY + "m = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))"
    # Auto on both tiers, unlike AbstractMesh
    assert mesh_of(default, (0, 12, 0, 1)).axis_types == (AUTO,) * 2
    placed = mesh_of(
        NUMPY + "m = jax.make_mesh((2, 2), ('a', 'b'), devices=jax.devices()[:4])"
    )
    assert placed.axis_sizes == (2, 2) and placed.axis_types == (EXPLICIT,) * 2
    base = NUMPY + "c = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))\n"
    assert mesh_of(
        base + "m = c.update(devices=np.array(jax.devices()[:4]).reshape(4, 1))"
    ).axis_sizes == (4, 1)
    renamed = mesh_of(base + "m = c.update(axis_names=('p', 'q'))")
    assert renamed.axis_sizes == (2, 4) and renamed.axis_names == ("p", "q")
    # Mesh.update's first parameter is devices
    assert mesh_of(base + "m = c.update((4, 1))").axis_sizes is None
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
def test_what_a_known_mesh_tells_about_itself(expression: str, value: object) -> None:
    code = (
        NUMPY
        + "c = Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))\n"
        + "a = c.abstract_mesh\n"
        + f"v = {expression}"
    )
    assert last_value(code) == value


def test_numpy_apis_resolve_by_qualified_name() -> None:
    local = (
        HEADER + "def array(x):\n    return x\n"
        "m = Mesh(array(jax.devices()).reshape(2, 4), ('a', 'b'))"
    )
    # a local `array` returns the list, which has no reshape
    assert mesh_of(local).axis_sizes is None
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


def test_attributes_of_an_imported_mesh_and_a_project_function_named_reshape(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "meshes.py": (
                "import jax\nimport numpy as np\nfrom jax.sharding import Mesh\n"
                "TRAIN_MESH = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ('data', 'model'))\n"
                "def reshape(x):\n    return 6\n"
            ),
            "main.py": (
                "import meshes\nfrom meshes import TRAIN_MESH\n"
                "sizes = (TRAIN_MESH.size, TRAIN_MESH.shape['model'], meshes.reshape(1))\n"
            ),
        },
    )
    engine, module = of_file(tmp_path / "main.py", (tmp_path,))
    assert engine.value_of(module, last_expr(module)) == (8, 2, 6)


BUILT_THROUGH = (
    HEADER
    + """\
import functools


class Config:
    def __init__(self, shape=(2, 4), **kwargs):
        self.shape = shape

    @staticmethod
    def build(shape):
        return jax.make_mesh(shape, ("a", "b"))

    @functools.cached_property
    def mesh(self):
        return self.build(self.shape)


class Model:
    def __init__(self, config):
        self.mesh = config.mesh


def same(mesh):
    return mesh
"""
)


def _lines(mesh: Mesh) -> list[int]:
    return [line for _, line in mesh.built_at]


def test_a_property_read_and_a_static_method_call_are_frames_the_mesh_was_built_through():
    mesh = mesh_of(BUILT_THROUGH + "Config(shape=(4, 2)).mesh")
    assert mesh.axis_sizes == (4, 2)
    # the read, the getter's call of the static method, the line that built it
    assert _lines(mesh) == [26, 16, 12]


def test_a_mesh_built_by_an_init_is_built_through_the_construction():
    mesh = mesh_of(BUILT_THROUGH + "config = Config(shape=(4, 2))\nModel(config).mesh")
    assert _lines(mesh) == [27, 21, 16, 12]


def test_a_mesh_a_function_is_given_was_not_built_through_its_call():
    mesh = mesh_of(BUILT_THROUGH + "made = Config().mesh\nsame(made)")
    assert _lines(mesh) == [26, 16, 12]
