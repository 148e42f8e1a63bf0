import jax
import jax.numpy as jnp

from metrics import counts, fsdp


def test_count_tokens():
    mesh = fsdp.create_mesh()
    with jax.set_mesh(mesh):
        mask = jnp.ones((8, 4), jnp.int32)
        assert int(counts.count_tokens(mesh, mask)) == 32


def test_count_eval_tokens():
    mesh = fsdp.create_eval_mesh()
    with jax.set_mesh(mesh):
        mask = jnp.ones((8, 4), jnp.int32)
        assert int(counts.count_eval_tokens(mesh, mask)) == 32


def test_mesh_size():
    assert fsdp.create_mesh().size == jax.device_count()
