"""Lowering a jitted forward through partials that hold its parameters."""

import functools

import jax
import jax.numpy as jnp
from jax.sharding import AbstractMesh, NamedSharding, use_abstract_mesh
from jax.sharding import PartitionSpec as P


def forward(params, x):
    return x @ params


MESH = AbstractMesh((4, 2), ("data", "model"))


def abstract_args():
    params = jax.ShapeDtypeStruct(
        (4, 4), jnp.float32, sharding=NamedSharding(MESH, P())
    )
    x = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NamedSharding(MESH, P("data")))
    return params, x


def lower_forward():
    params, x = abstract_args()
    with use_abstract_mesh(MESH):
        lower = functools.partial(jax.jit(forward).lower, params)
        return lower(x)


def lower_on_devices():
    """Runs: concrete arrays on a concrete mesh."""
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    params = jax.device_put(jnp.ones((4, 4)), NamedSharding(mesh, P()))
    x = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data")))
    with jax.set_mesh(mesh):
        lower = functools.partial(jax.jit(forward).lower, params)
        return lower(x)


class Exporter:
    def __init__(self):
        self.params, self.x = abstract_args()

    @functools.cached_property
    def _lower(self):
        return functools.partial(jax.jit(forward).lower, self.params)

    def export(self):
        with use_abstract_mesh(MESH):
            return self._lower(self.x)
