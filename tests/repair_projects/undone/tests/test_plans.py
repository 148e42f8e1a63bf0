from plans import served, shapes
from plans.batching import Plan


def test_planned_batch():
    assert shapes.planned_batch(Plan()) == 32


def test_served_batch():
    assert served.served_batch(Plan()) == 32
