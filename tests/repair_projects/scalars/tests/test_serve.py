import jax.numpy as jnp

from serve import engine
from serve.args import ServerArgs
from serve.runner import Runner, wide_sizes


def runner():
    return Runner(ServerArgs.from_file(), engine.load())


def test_draft_sizes():
    assert runner().draft_sizes() in ((2, 4), (4, 2))


def test_target_sizes():
    assert runner().target_sizes() == (2, 4)


def test_speculative_sizes():
    assert runner().speculative_sizes() in ((2, 4), (4, 2))


def test_engine_sizes():
    assert runner().engine_sizes() == (2, 4)


def test_eval_preset():
    assert runner().preset_sizes("eval") in ((2, 4), (4, 2))


def test_train_preset():
    assert runner().preset_sizes("train") == (2, 4)


def test_probe_preset():
    assert runner().preset_sizes("probe") in ((2, 4), (4, 2))


def test_wide_preset():
    assert wide_sizes() == (4, 4)


def test_step():
    assert float(runner().step(jnp.float32(0))) == 28.0


def test_placed_step():
    assert float(runner().placed_step(jnp.float32(0))) == 28.0
