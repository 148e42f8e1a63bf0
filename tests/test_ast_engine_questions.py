"""What the `ast` engine's modules beyond values and contexts answer (device shapes, arguments
that bring no devices, jit applications, import spellings, eager ops), on small programs: one
fact each, no JAX imported (fast)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxfix.analysis.ast_engine import Engine
from jaxfix.analysis.ast_engine.project import Module
from jaxfix.analysis.ast_engine.values import AxisType, Mesh, MeshKind

HEAD = (
    "import jax\n"
    "from jax.sharding import AbstractMesh, Mesh\n"
    "import numpy as np\n"
    "from jax.experimental import mesh_utils\n"
)


def last_value(tmp_path: Path, source: str):
    """The value of the last statement's expression (`m = ...`: its value)."""
    main = tmp_path / "main.py"
    main.write_text(HEAD + source + "\n")
    engine = Engine(roots=(tmp_path,), files=(main,), jax_version=(0, 10, 2))
    module = engine.module(main)
    assert isinstance(module, Module)
    last = module.tree.body[-1]
    assert isinstance(last, (ast.Assign, ast.Expr))
    return engine.value_of(module, last.value)


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
def test_mesh_sizes_from_the_shape_of_its_devices(tmp_path, code, sizes):
    mesh = last_value(tmp_path, code)
    assert isinstance(mesh, Mesh)
    assert mesh.kind is MeshKind.CONCRETE
    assert mesh.axis_sizes == sizes
    assert mesh.axis_types == (AxisType.AUTO,) * len(sizes)


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
def test_mesh_sizes_jaxfix_cannot_know(tmp_path, code):
    mesh = last_value(tmp_path, code)
    assert (
        not isinstance(mesh, Mesh) or mesh.axis_sizes is None or None in mesh.axis_sizes
    )
