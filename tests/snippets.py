"""A small JAX001 violation and its fix, for engine and CLI tests that need a rule to fire."""

VIOLATION = """\
import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P

mesh = AbstractMesh((2, 4), ("x", "y"))
x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("x")))
lowered = jax.jit(jnp.sin).lower(x)
"""
CALL = "jax.jit(jnp.sin).lower(x)"
FIXED_CALL = "jax.jit(jnp.sin).trace(x).lower(lowering_platforms=(jax.export.default_export_platform(),))"
FIXED = VIOLATION.replace(CALL, FIXED_CALL)
VIOLATION_LINE = 7
CLEAN = "import jax\n\nprint(jax.numpy.zeros(3))\n"
