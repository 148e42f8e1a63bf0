from stages.run import probe_sizes, stage_sizes, strict_stage_sizes


def test_train():
    assert stage_sizes("train") == (2, 4)


def test_eval():
    assert stage_sizes("eval") == (2, 4)


def test_probe():
    assert probe_sizes()


def test_serve():
    assert strict_stage_sizes("serve") == (2, 4)
