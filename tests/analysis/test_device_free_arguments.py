"""JAX001 next to arguments that bring no devices (host data, uncommitted arrays) and next to
ones that do (committed arrays, `device=`): which kinds were checked against real JAX is in
jaxfix/analysis/ast_engine/device_free.py (its cases are asked of that module directly in
tests/analysis/test_ast_engine_questions.py); fixtures/JAX001/host_and_uncommitted_array_arguments.py runs some."""

from __future__ import annotations

import pytest

from helpers import run_engine

HEADER = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

sds = jax.ShapeDtypeStruct((8, 2), jnp.float32, sharding=NamedSharding(AbstractMesh((2,), ("x",)), P("x")))
g = jax.jit(lambda a, b: (a, b))
"""


def reported(argument: str) -> bool:
    result = run_engine(
        HEADER + f"g.lower(sds, {argument})\n", ["--jax-version", "0.10.2"]
    )
    assert result.error is None, result.error
    return any(d.code == "JAX001" for d in result.diagnostics)


@pytest.mark.parametrize(
    "argument",
    [
        "np.arange(8)",
        "np.float32(1.0)",
        "np.random.randn(3)",
        "3",
        "-1",
        "2.5",
        "1j",
        "True",
        "jnp.arange(8)",
        "jnp.ones((8,))",
        "jnp.zeros((2, 2), dtype=jnp.int32)",
        "jnp.full((8,), 2.0)",
        "jnp.eye(4)",
        "jnp.linspace(0, 1, 8)",
        "jnp.array([1.0, 2.0])",
        "jnp.asarray(np.ones(3))",
        "jax.device_put(np.arange(8))",
        "jax.device_put(np.arange(8), None)",
        "jax.device_put(3, device=None)",
        "(np.ones(3), jnp.zeros(2))",
        "[1, 2.0]",
        "{'a': np.ones(3), 'b': 2}",
    ],
)
def test_host_data_and_uncommitted_arrays_do_not_hide_the_abstract_mesh(argument):
    assert reported(argument)


@pytest.mark.parametrize(
    "argument",
    [
        "jnp.ones((8,), device=jax.devices()[0])",
        "jax.device_put(np.arange(8), jax.devices()[0])",
        "jax.device_put(np.arange(8), device=jax.devices()[0])",
        "jax.device_put(committed)",
        "jnp.asarray(committed)",
        "jnp.ones_like(committed)",
        "committed",
        "(np.ones(3), committed)",
        "jnp.arange(*shape)",
        "make_array()",
    ],
)
def test_arrays_that_may_carry_devices_stop_the_rule(argument):
    assert not reported(argument)
