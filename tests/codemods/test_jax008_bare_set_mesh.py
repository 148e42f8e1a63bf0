"""JAX008 on a bare `jax.set_mesh(m)` (not entered by a `with`): the fix goes where `m` was
stored, as `mesh.abstract_mesh` of a concrete mesh; where that cannot be said, the report
names the line and why. Project-level cases under real JAX: tests/workflows/
test_repair_globalmesh.py."""

from __future__ import annotations

import pytest

from helpers import run_engine

HEADER = """\
import jax
import numpy as np
from jax.sharding import AbstractMesh, Mesh

"""
CONCRETE = 'Mesh(np.array(jax.devices()), ("x",))'


def _jax008(source: str):
    result = run_engine(HEADER + source, ["--jax-version", "0.10.2", "--unsafe-fixes"])
    assert result.error is None, result.error
    (diagnostic,) = [d for d in result.diagnostics if d.code == "JAX008"]
    return diagnostic, result


def test_an_attribute_stored_abstract_in_init_stores_the_concrete_mesh():
    source = f"""
class Server:
    def __init__(self):
        mesh = {CONCRETE}
        self.mesh = mesh.abstract_mesh

    def setup(self):
        jax.set_mesh(self.mesh)
"""
    diagnostic, result = _jax008(source)
    assert diagnostic.fix_title == (
        "store the concrete mesh `mesh` where `self.mesh` is set (line 9)"
    )
    assert result.fixed is not None and b"        self.mesh = mesh\n" in result.fixed


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            'SKETCH = AbstractMesh((8,), ("x",))\njax.set_mesh(SKETCH)\n',
            "no concrete mesh is on its path",
        ),
        (
            f"M = {CONCRETE}.abstract_mesh\njax.set_mesh(M)\nprint(M.axis_names)\n",
            "it is also read at line 7, where it may have to stay abstract",
        ),
    ],
)
def test_a_stored_mesh_that_cannot_be_made_concrete_is_named(source, why):
    diagnostic, result = _jax008(source)
    assert diagnostic.fix_title is None
    assert "which should hold the concrete mesh, but " + why in diagnostic.message
    assert result.fixed is None


def test_a_mesh_stored_twice_is_not_followed():
    source = (
        f"M = {CONCRETE}.abstract_mesh\nM = {CONCRETE}.abstract_mesh\njax.set_mesh(M)\n"
    )
    diagnostic, _ = _jax008(source)
    assert diagnostic.fix_title is None
    assert "should hold the concrete mesh" not in diagnostic.message
