from stages.run import per_shard_batch


def test_eval(outer_mesh):
    assert per_shard_batch("eval") > 0


def test_probe(outer_mesh):
    assert per_shard_batch("probe") == 3
