import jax.numpy as jnp

from plans import sharding, steps


def test_eval_shapes():
    assert steps.eval_shapes(sharding.eval_plan(), jnp.ones((4, 2)), (8, 4)).shape == ()


def test_serve_shapes():
    assert steps.eval_shapes(sharding.serve_plan(), jnp.ones((4, 2)), (8, 4)).shape == ()


def test_planned_shapes():
    assert steps.planned_shapes(jnp.ones((4, 2)), (8, 4)).shape == ()


def test_fit():
    w = steps.fit(jnp.ones((4, 2)), jnp.ones((8, 4)))
    assert w.shape == (4, 2)
