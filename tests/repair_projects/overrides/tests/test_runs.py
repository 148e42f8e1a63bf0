import math

import jax

from runs.launch import launch_config
from runs.run import Runner


def _sizes(launch):
    return Runner(launch_config(launch)).probe_sizes()


def test_base_probe():
    assert _sizes("base") == {"data": 4, "model": 2}


def test_wide_probe():
    assert _sizes("wide") == {"data": 8, "model": 1}


def test_small_probe():
    assert math.prod(_sizes("small").values()) == 8


def test_tiny_probe():
    assert math.prod(_sizes("tiny").values()) == 8


def test_hosts_probe():
    assert math.prod(_sizes("hosts").values()) == jax.device_count()


def test_extra_override():
    assert launch_config("base", ["name=other"]).name == "other"
