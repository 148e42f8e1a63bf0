from configs import serve, train
from runtime import loop


def test_train():
    assert loop.run(train.strategy()) == [8, 8]


def test_serve():
    assert loop.run(serve.strategy()) == [8, 8]
