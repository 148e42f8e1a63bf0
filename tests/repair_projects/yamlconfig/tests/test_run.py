from stages import run


def test_evaluate():
    assert run.evaluate() == (2, 4)


def test_wide():
    assert run.wide() == (4, 4)


def test_narrow():
    assert run.narrow() == (2, 4)
