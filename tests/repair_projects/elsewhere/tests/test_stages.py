import jax.numpy as jnp
from jax.sharding import PartitionSpec

from model.factories import zeros_on_other_rows, zeros_on_own_rows
from model.partitioned import doubled_under_set_mesh
from model.placed import doubled_on_named_shardings
from model.rows import doubled_rows, tripled_placed_rows
from model.training import train_and_count, train_and_evaluate
from model.stages import (
    checked_total,
    lowered_text,
    served_on_every_device,
    served_on_four_devices,
    served_text,
    total,
    zeros,
)


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


def test_doubled_rows():
    assert float(doubled_rows(jnp.ones((8, 4))).sum()) == 64.0


def test_tripled_placed_rows():
    assert float(tripled_placed_rows(jnp.ones((8, 4))).sum()) == 96.0


def test_train_and_evaluate():
    assert float(train_and_evaluate().sum()) == 56.0


def test_train_and_count():
    assert train_and_count() == 8


def test_served_on_every_device():
    assert float(served_on_every_device().sum()) == 56.0


def test_served_on_four_devices():
    assert float(served_on_four_devices().sum()) == 56.0


def test_zeros_on_other_rows():
    assert zeros_on_other_rows() == PartitionSpec("x")


def test_zeros_on_own_rows():
    assert zeros_on_own_rows() == PartitionSpec("x")


def test_doubled_under_set_mesh():
    assert float(doubled_under_set_mesh().sum()) == 56.0


def test_doubled_on_named_shardings():
    assert float(doubled_on_named_shardings().sum()) == 56.0
