import jax.numpy as jnp

from presets.data import model_mesh, shard_batch


def test_shard_batch():
    assert shard_batch(jnp.ones((8, 2))).shape == (8, 2)


def test_model_mesh():
    assert model_mesh().axis_sizes == (2, 4)
