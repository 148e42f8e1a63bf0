from stages.run import Stage, core_sizes, host_sizes


def test_eval():
    assert Stage("eval").sizes() == (2, 4)


def test_serve():
    assert Stage("serve").sizes() == (2, 4)


def test_probe():
    assert Stage("probe").sizes() == (2, 4)


def test_launch():
    assert Stage("launch").launched_sizes()


def test_host():
    assert host_sizes() == (2, 4)


def test_cores():
    assert core_sizes() == (2, 4)
