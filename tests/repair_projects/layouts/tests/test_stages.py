from roles.stages import role_sizes, serve_sizes


def test_reference():
    assert role_sizes("reference", (2, 4)) in ((2, 4), (4, 2))


def test_wide_role():
    assert role_sizes("wide", (4, 4)) == (4, 4)


def test_narrow_serving():
    assert serve_sizes("narrow", (2, 4)) in ((2, 4), (4, 2))


def test_wide_serving():
    assert serve_sizes("wide", (8, 2)) == (4, 4)
