from launch.steps import (
    host_sizes,
    launched_zeros,
    pod_doubled,
    serving_zeros,
    slice_sizes,
    target_doubled,
)


def test_host():
    assert host_sizes() == (8,)


def test_slice():
    assert slice_sizes() == (8,)


def test_launched():
    assert launched_zeros() == (8, 8)


def test_serving():
    assert serving_zeros() == (8, 8)


def test_target():
    assert target_doubled() == 56.0


def test_pod():
    assert pod_doubled() == 56.0
