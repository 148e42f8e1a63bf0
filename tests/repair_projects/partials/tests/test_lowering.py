from export import lowering


def test_lower_forward():
    assert lowering.lower_forward().as_text()


def test_lower_on_devices():
    assert lowering.lower_on_devices().as_text()


def test_exporter():
    assert lowering.Exporter().export().as_text()
