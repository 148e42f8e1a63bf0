import jax.numpy as jnp

from serve.steps import Server


def test_mean_side():
    assert float(Server().mean_side(jnp.arange(8.0))) == 3.5


def test_mean_main():
    assert float(Server().mean_main(jnp.arange(8.0))) == 3.5


def test_total_side():
    assert float(Server().total_side(jnp.arange(8.0))) == 28.0


def test_total_main():
    assert float(Server().total_main(jnp.arange(8.0))) == 28.0


def test_total_twice():
    assert float(Server().total_twice(jnp.arange(8.0))) == 56.0
