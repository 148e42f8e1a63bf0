from stages import run


def test_evaluate():
    assert run.evaluate() == (4, 2)


def test_probe():
    assert run.probe() == (4, 2)


def test_pod():
    assert run.pod() == (4, 2)


def test_half():
    assert run.half() == (4, 2)


def test_small():
    assert run.small() == (2, 2)
