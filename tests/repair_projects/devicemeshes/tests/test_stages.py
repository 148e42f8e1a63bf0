from presets.stages import host_only_sizes, runner


def test_small():
    assert runner("small").eval_sizes() == (4, 2)
    assert runner("small").decode_sizes() == (2, 4)
    assert runner("small").layout_sizes("narrow") == (2, 4)


def test_large_eval():
    assert runner("large").eval_sizes() in ((2, 4), (4, 2))


def test_serving_decode():
    assert runner("serving").decode_sizes() in ((2, 4), (4, 2))


def test_wide_layout():
    assert runner("small").layout_sizes("wide") in ((2, 4), (4, 2))


def test_host_sizes():
    assert runner("small").host_sizes() in ((2, 4), (4, 2))


def test_host_only():
    assert host_only_sizes() == (2, 2)
