from launch import distributed, train


def test_train_on_the_global_batch():
    assert train.train(distributed.global_mesh()) >= 0.0


def test_train_on_the_local_batch():
    assert train.train(distributed.local_mesh()) >= 0.0
