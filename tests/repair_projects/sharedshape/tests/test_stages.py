from pkg import launcher


def test_evaluate():
    assert launcher.trainer().evaluate(8) == (8, 4)


def test_serve_shapes():
    assert launcher.trainer().serve_shapes() == (8, 4)
