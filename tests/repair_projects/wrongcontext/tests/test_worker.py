import numpy as np

from disagg import worker


def test_send():
    sent = worker.DisaggWorker().send(1)
    assert float(np.asarray(sent).sum()) == 528.0


def test_send_on_prefill():
    assert worker.DisaggWorker().send_on_prefill(2).shape == (4, 8)


def test_send_local():
    assert worker.send_local(3).shape == (4, 8)


def test_gather_here():
    assert worker.gather_here(4).shape == (4, 8)
