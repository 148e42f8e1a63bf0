"""Shapes under each plan, and a training step under the host mesh."""
import equinox as eqx
import jax
import jax.numpy as jnp

from plans import devices


def _loss(w, x):
    return jnp.mean((x @ w) ** 2)


def eval_shapes(plan, w, x_shape):
    with jax.set_mesh(plan.mesh):
        with jax.sharding.use_abstract_mesh(plan.abstract_mesh()):
            x = jax.ShapeDtypeStruct(x_shape, jnp.float32)
            return eqx.filter_eval_shape(_loss, w, x)


def planned_shapes(w, x_shape):
    with jax.sharding.use_abstract_mesh(devices.planning_mesh()):
        x = jax.ShapeDtypeStruct(x_shape, jnp.float32)
        return eqx.filter_eval_shape(_loss, w, x)


@eqx.filter_jit
def _step(w, x):
    return w - 0.1 * jax.grad(_loss)(w, x)


def fit(w, x, steps=3):
    with jax.set_mesh(devices.host_mesh()):
        for _ in range(steps):
            w = _step(w, x)
    return w
