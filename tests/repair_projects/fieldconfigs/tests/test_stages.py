import math

import jax

from stages.configs import BUILDERS
from stages.presets import Preset, StageConfig
from stages.run import Prober, Runner


def _runner(name):
    return Runner(BUILDERS[name]())


def _prober(preset):
    return Prober(StageConfig.of(preset))


def test_base_probe():
    assert _runner("base").probe_sizes() == {"data": 4, "model": 2}


def test_small_probe():
    assert math.prod(_runner("small").probe_sizes().values()) == 8


def test_host_probe():
    assert math.prod(_runner("host").probe_sizes().values()) == jax.device_count()


def test_wide_preset():
    assert _prober(Preset.WIDE).probe_sizes() == {"data": 4, "model": 2}


def test_narrow_preset():
    assert math.prod(_prober(Preset.NARROW).probe_sizes().values()) == 8


def test_pod_preset():
    assert math.prod(_prober(Preset.POD).probe_sizes().values()) == jax.device_count()
