import numpy as np

from stages.trainer import Trainer


def test_gather_conditions():
    out = Trainer().gather_conditions(np.ones((8, 4), np.float32))
    assert out.shape == (8, 4)


def test_gather_eval():
    out = Trainer().gather_eval(np.ones((8, 4), np.float32))
    assert out.shape == (8, 4)


def test_gather_on_fresh_mesh():
    out = Trainer().gather_on_fresh_mesh(np.ones((8, 4), np.float32))
    assert out.shape == (8, 4)
