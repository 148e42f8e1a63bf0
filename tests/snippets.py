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
# The fixed line would be longer than 88 characters, so the call's arguments go one per line.
FIXED = VIOLATION.replace(
    CALL,
    "jax.jit(jnp.sin).trace(x).lower(\n    lowering_platforms=(jax.export.default_export_platform(),),\n)",
)
VIOLATION_LINE = 7
CLEAN = "import jax\n\nprint(jax.numpy.zeros(3))\n"
# A JAX002 violation whose only fix is unsafe: reported, not fixed by default, so its result has
# no fixed code and is what the result cache stores (a result with a fix never is).
REPORTED = """\
from jax.sharding import AbstractMesh, use_abstract_mesh

with use_abstract_mesh(AbstractMesh((8, 4), ("data", "model"))):
    with use_abstract_mesh(AbstractMesh((16, 4), ("data", "model"))):
        pass
"""
