from mixing.mixer import data_mix, row_mix, served_mix, stage_mix


def test_data_mixer():
    assert data_mix().shape == (8, 4)


def test_stage_mixer():
    assert stage_mix().shape == (8, 4)


def test_row_mixer():
    assert row_mix().shape == (8, 4)


def test_served_mixer():
    assert served_mix().shape == (8, 4)
