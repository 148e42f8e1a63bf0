import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

from serve.layers import (
    local_layer,
    make_gather,
    make_scaled,
    make_summary,
    serving_mesh,
)

VALUES = np.ones((8, 4), np.float32)


def test_total():
    assert make_gather(serving_mesh()).total(VALUES) == 32


def test_total_on_the_serving_mesh():
    mesh = serving_mesh()
    layer = make_gather(mesh, NamedSharding(mesh, PartitionSpec(reduced={"x"})))
    assert layer.total(VALUES) == 32


def test_summary():
    assert make_summary(serving_mesh()).total(VALUES) == 32


def test_scaled():
    assert make_scaled(serving_mesh()).total(VALUES) == 64


def test_local():
    assert local_layer().total(VALUES) == 32
