from export.steps import exported_by_keyword, exported_for_cpu, exported_shape


def test_exported():
    assert exported_shape() == (8, 4)


def test_exported_for_cpu():
    assert exported_for_cpu() == (8, 4)


def test_exported_by_keyword():
    assert exported_by_keyword() == (8, 4)
