from stages.run import pod_sizes, serve_sizes, stage_sizes


def test_train():
    assert stage_sizes("train") == (2, 4)


def test_wide():
    assert stage_sizes("wide") == (2, 4)


def test_eval():
    assert stage_sizes("eval") == (2, 4)


def test_pod():
    assert pod_sizes()


def test_pod_again():
    assert pod_sizes()


def test_serve():
    assert serve_sizes()
