"""JAX001 cases beyond the fixtures: evidence the rule must not guess at, and fixes it must not offer."""

from __future__ import annotations

import pytest

from helpers import run_engine

HEADER = """\
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P, use_abstract_mesh

mesh = AbstractMesh((2, 4), ("x", "y"))
x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
"""


def jax001(source: str, args=("--jax-version", "0.10.2", "--unsafe-fixes")):
    result = run_engine(HEADER + source, list(args))
    assert result.error is None, result.error
    return [d for d in result.diagnostics if d.code == "JAX001"], result


@pytest.mark.parametrize(
    "source",
    [
        "jax.jit(jnp.sin).lower(x, lowering_platforms=('cpu',))",  # forwarded to f: not a platform
        "args = [x]\nargs.append(extra)\njax.jit(jnp.sin).lower(*args)",  # may change
        "def lower_it(y):\n    return jax.jit(jnp.sin).trace(y).lower()",
        "g = jax.jit(jnp.sin)\nif flag:\n    g = jax.jit(jnp.cos)\ng.lower(x)",  # two bindings reach it
        # unpacked: jax.jit(jnp.sin) or one jitted for a device
        "g, _ = (jax.jit(jnp.sin), 1) if flag else (jax.jit(jnp.cos, backend='cpu'), 1)\n"
        "g.lower(x)",
        "def outer(f):\n    return f\n\n@outer\n@jax.jit\ndef h(a):\n    return a\n\nh.lower(x)",
        "jax.jit(jnp.sin)(x).lower()",
        "jax.jit(jnp.sin, device=jax.devices()[0]).lower(x)",
        "jax.jit(jnp.sin, in_shardings=P('x')).lower(x)",
        "jax.jit(jnp.sin).trace(x).lower(_private_parameters=None)",
        "jax.jit(jnp.sin, static_argnums=n).lower(x)",
        "jax.jit(lambda a: jax.device_put(a)).lower(x)",
        (
            "small = AbstractMesh((2, 2), ('x', 'y'))\n"
            "y = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(small, P('x')))\n"
            "jax.jit(lambda a, b: a).lower(x, y)"
        ),
        (
            "z = jax.ShapeDtypeStruct((8,), jnp.float32)\n"
            "E = AbstractMesh((8,), ('d',), axis_types=(AxisType.Explicit,))\n"
            "with use_abstract_mesh(E):\n    with use_abstract_mesh(AbstractMesh((8,), ('d',), axis_types=(AxisType.Auto,))):\n"
            "        jax.jit(jnp.sin).lower(z)"
        ),
        "def under(m):\n    with use_abstract_mesh(m):\n        return jax.jit(jnp.sin).lower(x)",
    ],
    ids=[
        "lowering-platforms-forwarded-to-f",
        "star-arguments-of-a-changed-list",
        "argument-is-a-parameter",
        "jitted-name-bound-in-one-branch",
        "unpacked-jit-with-or-without-a-device",
        "jit-is-not-the-outermost-decorator",
        "lower-on-a-call-result",
        "jit-device-keyword",
        "in-shardings-bare-partition-spec",
        "other-lower-keyword",
        "static-argnums-unknown",
        "body-calls-device-put",
        "abstract-meshes-of-different-sizes",
        "inner-auto-mesh-hides-explicit-one",
        "context-mesh-is-a-parameter",
    ],
)
def test_no_report_without_evidence(source):
    diagnostics, result = jax001(source)
    assert diagnostics == []
    assert result.fixed is None


def test_pytree_of_abstract_structs_is_evidence():
    (diagnostic,), result = jax001(
        "jax.jit(lambda d: d['a']).lower({'a': x, 'b': 1.0})"
    )
    assert diagnostic.applied
    assert (
        b".trace({'a': x, 'b': 1.0}).lower(\n    lowering_platforms=" in result.fixed
    )  # too long for one line


def test_star_arguments_the_engine_knows_are_evidence():
    (diagnostic,), result = jax001(
        "args, kwargs = (x,), {}\njax.jit(jnp.sin).lower(*args, **kwargs)"
    )
    assert diagnostic.applied and "argument `args[0]`" in diagnostic.message
    assert b".trace(*args, **kwargs).lower(\n    lowering_platforms=" in result.fixed


def test_jitted_name_bound_after_the_function_that_lowers_it():
    (diagnostic,), result = jax001(
        "def run():\n    return step.lower(x)\n\nstep = jax.jit(jnp.sin)"
    )
    assert diagnostic.applied
    assert (
        b"step.trace(x).lower(\n        lowering_platforms=" in result.fixed
    )  # too long for one line


def test_compile_with_unknown_mesh_size_reads_the_named_mesh_s_size():
    source = """
def lower_for(n):
    m = AbstractMesh((n, 4), ("x", "y"))
    z = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(m, P("x")))
    return jax.jit(jnp.sin).lower(z).compile()
"""
    (diagnostic,), result = jax001(source)
    assert diagnostic.fix_title == (
        "add lowering_platforms=(jax.export.default_export_platform(),) and "
        "device_assignment=tuple(jax.devices()[:m.size])"
    )
    assert result.fixed is not None
    assert b".compile(device_assignment=tuple(jax.devices()[:m.size]))" in result.fixed


@pytest.mark.parametrize(
    ("mesh", "size"),
    [
        (
            'NamedSharding(AbstractMesh((n, 4), ("x", "y")), P("x"))',
            "z.sharding.mesh.size",
        ),
        ('NamedSharding(meshes[0], P("x"))', "z.sharding.mesh.size"),
    ],
)
def test_compile_with_an_unnamed_mesh_reads_the_argument_s_size(mesh, size):
    source = f"""
def lower_for(n):
    meshes = [AbstractMesh((n, 4), ("x", "y"))]
    z = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding={mesh})
    return jax.jit(jnp.sin).lower(z).compile()
"""
    (diagnostic,), result = jax001(source)
    assert diagnostic.fix_title is not None
    assert diagnostic.fix_title.endswith(
        f"device_assignment=tuple(jax.devices()[:{size}])"
    )


@pytest.mark.parametrize(
    "lowered",
    [
        "jax.jit(jnp.sin).lower(jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=s))",
        "jax.jit(jnp.sin).lower(zs[0])",  # an item of a list
        "jax.jit(lambda a: a[0]).lower(zs)",  # the list itself: it has no sharding
    ],
)
def test_compile_with_unknown_mesh_size_not_named_is_reported_without_fix(lowered):
    source = f"""
def lower_for(n):
    s = NamedSharding(AbstractMesh((n, 4), ("x", "y")), P("x"))
    zs = [jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=s)]
    return {lowered}.compile()
"""
    (diagnostic,), result = jax001(source)
    assert diagnostic.fix_title is None
    assert (
        "neither the mesh nor its argument is a name read where it compiles"
        in diagnostic.message
    )
    assert "'device_assignment cannot be `None`'" in diagnostic.message
    assert result.fixed is None


def test_compile_that_has_device_assignment_keeps_the_safe_fix():
    source = "jax.jit(jnp.sin).trace(x).lower().compile(device_assignment=tuple(jax.devices()[:8]))"
    (diagnostic,), result = jax001(source, ("--jax-version", "0.10.2"))
    assert diagnostic.applied
    assert (
        b".lower(\n    lowering_platforms=(jax.export.default_export_platform(),),\n).compile(device_assignment=tuple(jax.devices()[:8]))"
        in result.fixed
    )


def test_jax_use_abstract_mesh_spelling_on_new_jax():
    source = "z = jax.ShapeDtypeStruct((8,), jnp.float32)\nwith jax.use_abstract_mesh(AbstractMesh((8,), ('d',))):\n    jax.jit(jnp.sin).lower(z)"
    (diagnostic,), _ = jax001(source, ("--jax-version", "0.12.0.1"))
    assert "use_abstract_mesh" in diagnostic.message


def test_callback_in_a_lambda_is_reported_without_fix():
    (diagnostic,), result = jax001(
        "jax.jit(lambda a: jax.pure_callback(lambda v: v, a, a)).lower(x)"
    )
    assert diagnostic.fix_title is None
    assert "jax.pure_callback needs devices" in diagnostic.message
    assert result.fixed is None


EXPLICIT = "E = AbstractMesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)\n"


@pytest.mark.parametrize(
    "mesh",
    [
        "E",
        # an abstract device gives no platform to an eager op (it does to `.lower()`)
        "jax.make_mesh((2, 4), ('x', 'y')).abstract_mesh",
    ],
)
def test_eager_op_under_an_explicit_abstract_mesh_is_reported_without_fix(mesh):
    (diagnostic,), result = jax001(
        EXPLICIT + f"with use_abstract_mesh({mesh}):\n    key = jax.random.key(0)"
    )
    assert diagnostic.fix_title is None
    assert diagnostic.message.startswith("`jax.random.key(0)` runs eagerly")
    assert f"use_abstract_mesh(`{mesh[:20]}" in diagnostic.message  # cut at 40
    assert result.fixed is None


@pytest.mark.parametrize(
    "source",
    [
        # in a function: it may be traced (under jit it lowers nothing eagerly)
        "def init():\n    with use_abstract_mesh(E):\n        return jnp.ones(3)",
        # NumPy computes on the host; eval_shape lowers nothing
        "with use_abstract_mesh(E):\n    y = np.ones(3)\n    z = jax.eval_shape(jnp.sin, x)",
        # Auto axes: no context mesh for JAX (the default before jax 0.11)
        "with use_abstract_mesh(AbstractMesh((8,), ('d',))):\n    key = jax.random.key(0)",
        # a committed argument brings its device
        "c = jax.device_put(np.ones(3), jax.devices()[0])\n"
        "with use_abstract_mesh(E):\n    y = jnp.asarray(c)",
    ],
    ids=[
        "in-a-function",
        "numpy-and-eval-shape",
        "auto-axes",
        "committed",
    ],
)
def test_no_eager_op_report_without_evidence(source):
    diagnostics, result = jax001("import numpy as np\n" + EXPLICIT + source)
    assert diagnostics == []
    assert result.fixed is None
