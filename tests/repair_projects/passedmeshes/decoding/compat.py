"""JAX version compatibility."""

import jax

if hasattr(jax.sharding, "use_mesh"):
    set_mesh = jax.sharding.use_mesh
else:
    set_mesh = jax.set_mesh
