from plans import run


def test_train():
    assert run.train_sizes() == (2, 4)


def test_eval():
    assert run.eval_sizes() == (2, 4)


def test_score():
    assert run.score_sizes() == (2, 4)


def test_probe():
    assert run.probe_sizes() == (2, 4)


def test_serve():
    assert run.serve_sizes() == (2, 4)


def test_blank_scores():
    from plans.scores import Scorer

    assert Scorer().blank().shape == (8, 8)
