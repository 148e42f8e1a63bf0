import numpy as np

from serve.runner import Runner


def test_step():
    assert float(Runner().step(np.float32(1.0))) == 29.0


def test_placed_step():
    assert float(Runner().placed_step(np.float32(0.0))) == 28.0


def test_reset_total():
    assert float(Runner().reset_total()) == 28.0


def test_evaluate():
    from serve.evaluate import evaluate

    runner = Runner()
    assert float(evaluate(runner._partitioner, np.float32(2.0))) == 30.0
