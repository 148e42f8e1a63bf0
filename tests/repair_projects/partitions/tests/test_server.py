from serving import server


def test_replicas():
    assert server.replica_sizes() == (4, 2)


def test_batches():
    assert server.batch_sizes() == (4, 2)
