from pkg import launcher


def test_evaluate():
    assert launcher.trainer().evaluate(8) == (8, 4)


def test_serve():
    assert launcher.server().evaluate(8) == (8, 4)
