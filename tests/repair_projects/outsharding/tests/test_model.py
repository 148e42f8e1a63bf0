import jax.numpy as jnp

from serve.model import Server


def test_total():
    assert float(Server().total(jnp.arange(8.0))) == 28.0


def test_total_on_mesh():
    assert float(Server().total_on_mesh(jnp.arange(8.0))) == 28.0


def test_total_and_sharding():
    total, _ = Server().total_and_sharding(jnp.arange(8.0))
    assert float(total) == 28.0


def test_total_later():
    assert float(Server().total_later(jnp.arange(8.0))) == 28.0
