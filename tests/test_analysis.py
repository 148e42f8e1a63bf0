"""The shared analysis: API resolution, the static mesh model, the current mesh, import spellings."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxfix.analysis.imports import api_spelling, module_spelling
from jaxfix.analysis.module import ModuleAnalysis
from jaxfix.analysis.wrapper import ModuleLevelBatchWrapper


def analyze(code: str, jax_version=(0, 10, 2)) -> tuple[ModuleAnalysis, cst.Module]:
    module = cst.parse_module(textwrap.dedent(code))
    return ModuleAnalysis(ModuleLevelBatchWrapper(module, unsafe_skip_copy=True), jax_version), module


def last_value(module: cst.Module) -> cst.BaseExpression:
    """The expression of the module's last statement (`value` in `target = value`, or a bare expr)."""
    small = module.body[-1].body[0]
    return small.value


def mesh_of(code: str, jax_version=(0, 10, 2)):
    analysis, module = analyze(code, jax_version)
    return analysis.meshes.mesh(last_value(module))


HEADER = "import jax\nfrom jax.sharding import AbstractMesh, AxisType, Mesh\n"


@pytest.mark.parametrize(
    "code, sizes, names",
    [
        ("m = AbstractMesh((8, 4), ('data', 'model'))", (8, 4), ("data", "model")),
        ("m = AbstractMesh(axis_names=('a',), axis_sizes=(2,))", (2,), ("a",)),
        ("DATA = 8\nMODEL = DATA // 2\nm = AbstractMesh((DATA, MODEL * 2 - 4), ('a', 'b'))", (8, 4), ("a", "b")),
        ("SIZES = (2, 2, 2)\nm = AbstractMesh(SIZES, ('a', 'b', 'c'))", (2, 2, 2), ("a", "b", "c")),
        ("m = AbstractMesh((n, 4), ('a', 'b'))", (None, 4), ("a", "b")),
        ("m = AbstractMesh((), ())", (), ()),
    ],
)
def test_abstract_mesh_shapes(code, sizes, names):
    mesh = mesh_of(HEADER + code)
    assert mesh.kind == "abstract" and mesh.axis_sizes == sizes and mesh.axis_names == names


def test_size_and_emptiness():
    assert mesh_of(HEADER + "m = AbstractMesh((8, 4), ('a', 'b'))").size == 32
    assert mesh_of(HEADER + "m = AbstractMesh((n, 4), ('a', 'b'))").size is None
    assert mesh_of(HEADER + "m = AbstractMesh((), ())").is_empty


def test_axis_types_default_by_jax_version_and_explicit_forms():
    code = HEADER + "m = AbstractMesh((2, 4), ('a', 'b'))"
    assert mesh_of(code, (0, 10, 2)).axis_types == ("Auto", "Auto")
    assert mesh_of(code, (0, 12, 0, 1)).axis_types == ("Explicit", "Explicit")
    assert mesh_of(code, None).axis_types == ("Explicit", "Explicit")  # unknown version: newest
    repeated = HEADER + "m = AbstractMesh((2, 4), ('a', 'b'), axis_types=(AxisType.Explicit,) * 2)"
    assert mesh_of(repeated).axis_types == ("Explicit", "Explicit")
    aliased = "import jax.sharding as shd\nm = shd.AbstractMesh((2,), ('a',), (shd.AxisType.Manual,))"
    assert mesh_of(aliased).axis_types == ("Manual",)
    unknown = HEADER + "m = AbstractMesh((2,), ('a',), axis_types=types)"
    assert mesh_of(unknown).axis_types is None


def test_concrete_meshes_and_their_abstract_view():
    made = mesh_of(HEADER + "m = jax.make_mesh((2, 4), ('a', 'b'))")
    assert made.kind == "concrete" and made.axis_sizes == (2, 4) and made.axis_types == ("Explicit", "Explicit")
    legacy = mesh_of(HEADER + "m = Mesh(devices, ('a', 'b'))")
    assert legacy.kind == "concrete" and legacy.axis_sizes is None and legacy.axis_types == ("Auto", "Auto")
    view = mesh_of(HEADER + "c = jax.make_mesh((2, 4), ('a', 'b'))\nm = c.abstract_mesh")
    assert view.kind == "abstract" and view.has_abstract_device and view.axis_sizes == (2, 4)


def test_update_and_abstract_device():
    updated = mesh_of(HEADER + "a = AbstractMesh((2, 4), ('x', 'y'))\nm = a.update(axis_sizes=(4, 4))")
    assert updated.axis_sizes == (4, 4) and updated.axis_names == ("x", "y")
    assert mesh_of(HEADER + "m = AbstractMesh((2,), ('x',), abstract_device=dev)").has_abstract_device
    assert not mesh_of(HEADER + "m = AbstractMesh((2,), ('x',), abstract_device=None)").has_abstract_device


def test_names_follow_one_binding_only():
    mesh = mesh_of(HEADER + "first = AbstractMesh((2,), ('x',))\nm = first")
    assert mesh.axis_sizes == (2,) and mesh.name == "first"
    rebound = HEADER + "m = AbstractMesh((2,), ('x',))\nm = AbstractMesh((4,), ('x',))\nm"
    assert mesh_of(rebound) is None
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
    mesh = analysis.meshes.mesh(expr)
    assert mesh.axis_sizes == (8,) and mesh.name == "self.mesh"


def test_mesh_equality_is_by_value_and_unknown_stays_unknown():
    a = mesh_of(HEADER + "m = AbstractMesh((2, 4), ('x', 'y'))")
    b = mesh_of(HEADER + "m = AbstractMesh((2, 4), ('x', 'y'))")
    c = mesh_of(HEADER + "m = AbstractMesh((4, 2), ('x', 'y'))")
    d = mesh_of(HEADER + "m = AbstractMesh((n, 4), ('x', 'y'))")
    assert a.same_as(b) is True and a.same_as(c) is False and a.same_as(d) is None


def test_setters_around_a_node_outermost_first_within_its_function():
    code = HEADER + textwrap.dedent(
        """
        outer = AbstractMesh((8,), ("x",))
        with jax.sharding.use_abstract_mesh(outer), open("f") as handle:
            with jax.set_mesh(jax.make_mesh((8,), ("x",))):
                def later():
                    pass
                target()
        """
    )
    analysis, module = analyze(code)
    inner = module.body[-1].body.body[0]
    call = inner.body.body[1].body[0].value
    setters, scope = analysis.current_mesh.setters_around(call)
    assert [s.api for s in setters] == ["use_abstract_mesh", "set_mesh"] and scope is None
    assert setters[0].mesh.axis_sizes == (8,) and setters[1].mesh.kind == "concrete"
    function_body = inner.body.body[0].body.body[0]
    setters, scope = analysis.current_mesh.setters_around(function_body)
    assert setters == [] and isinstance(scope, cst.FunctionDef)


def test_under_concrete_mesh_means_a_with_mesh_in_the_same_scope():
    code = HEADER + textwrap.dedent(
        """
        mesh = Mesh(jax.devices(), ("x",))
        abstract = AbstractMesh((8,), ("x",))
        with abstract:
            under_abstract_mesh()
        with jax.set_mesh(mesh):
            under_set_mesh()
        with open("f"), mesh:
            def later():
                in_function()
            under_mesh()
        """
    )
    analysis, module = analyze(code)
    set_mesh_call = module.body[-2].body.body[0].body[0].value
    with_mesh = module.body[-1].body.body
    in_function = with_mesh[0].body.body[0].body[0].value
    under_mesh = with_mesh[1].body[0].value
    under_abstract_mesh = module.body[-3].body.body[0].body[0].value
    model = analysis.current_mesh
    assert model.under_concrete_mesh(under_mesh)
    assert not model.under_concrete_mesh(under_abstract_mesh)
    assert not model.under_concrete_mesh(set_mesh_call)  # set_mesh is a setter, not `with mesh:`
    assert not model.under_concrete_mesh(in_function)  # another scope


def test_import_spellings():
    module = cst.parse_module("import jax as jx\nfrom jax.sharding import NamedSharding as NS\n")
    assert module_spelling(module, "jax") == ("jx", ())
    assert api_spelling(module, "NamedSharding", "jax.sharding") == ("NS", ())
    bare = cst.parse_module("import jax.numpy as jnp\n")
    assert module_spelling(bare, "jax") == ("jax", (("jax", None),))
    assert api_spelling(bare, "NamedSharding", "jax.sharding") == ("NamedSharding", (("jax.sharding", "NamedSharding"),))
    assert module_spelling(cst.parse_module("import jax.sharding\n"), "jax") == ("jax", ())
