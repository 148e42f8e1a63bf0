from lab import recipes


def test_small_plan(host_mesh):
    assert recipes.small_plan().build().plan().shape == (16, 8)


def test_inferred_plan(host_mesh):
    assert recipes.inferred_plan().build().plan().shape == (16, 8)


def test_fit_and_score():
    assert recipes.fit().build().fit_and_score() > 0


def test_fit_and_score_on_device_mesh():
    assert recipes.fit().build().fit_and_score_on_device_mesh() > 0
