import jax.numpy as jnp
from jax.sharding import PartitionSpec

from model.stages import checked_total, lowered_text, served_text, total, zeros


def test_total():
    assert float(total(jnp.arange(8.0))) == 28.0


def test_checked_total():
    assert float(checked_total(jnp.arange(8.0))) == 28.0


def test_zeros():
    assert zeros() == PartitionSpec("x")


def test_lowered():
    assert "stablehlo" in lowered_text()


def test_served():
    assert "stablehlo" in served_text()
