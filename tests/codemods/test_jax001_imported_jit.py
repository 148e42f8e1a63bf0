"""JAX001 on a jitted function imported from another module of the project (issue 40, the
model module + export script layout): found like the same code in one file, and not when the
other module leaves what the import gets in doubt."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from jaxfix.cli.main import cli

EXPORT = """\
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

from model import forward

mesh = AbstractMesh((2, 4), ("x", "y"))
x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
lowered = forward.lower(x)
"""

DEF = "import jax\n\n\ndef _forward(x):\n    return x * 2\n\n\n"


@pytest.mark.parametrize(
    "model, reported",
    [
        ("import jax\n\n\n@jax.jit\ndef forward(x):\n    return x * 2\n", True),
        (DEF + "forward = jax.jit(_forward)\n", True),
        (DEF + "forward = jax.jit(_forward, donate_argnums=0)\n", True),
        # rebound again: which one the import gets is the flow's question, not answered here
        (
            DEF
            + "forward = jax.jit(_forward)\nforward = jax.jit(forward.__wrapped__)\n",
            False,
        ),
        (
            DEF
            + "forward = jax.jit(_forward)\nif jax.__version__:\n    forward = _forward\n",
            False,
        ),
        # jitted with a concrete sharding, or a body that places on devices
        (
            DEF
            + "forward = jax.jit(_forward, out_shardings=jax.sharding.NamedSharding("
            "jax.make_mesh((2, 4), ('x', 'y')), jax.P()))\n",
            False,
        ),
        (
            "import jax\n\n\n@jax.jit\ndef forward(x):\n"
            "    return jax.device_put(x, jax.devices()[0])\n",
            False,
        ),
        # not jitted
        ("def forward(x):\n    return x * 2\n", False),
    ],
)
def test_an_imported_jitted_function(model, reported, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "model.py").write_text(model)
    (tmp_path / "export.py").write_text(EXPORT)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--check", "--no-cache", "-q", "export.py"])
    assert ("export.py:9:11: JAX001" in result.stdout) is reported, result.stdout
