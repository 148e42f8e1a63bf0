from presets.export import export_on_devices, export_step


def test_export():
    assert "func" in export_step("batch", (2, 4)).as_text()


def test_export_on_devices():
    assert "func" in export_on_devices().as_text()
