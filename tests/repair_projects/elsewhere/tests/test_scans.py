import jax.numpy as jnp

from model.scans import scan_total


def test_scan_total():
    assert float(scan_total(jnp.arange(8.0))) == 28.0
