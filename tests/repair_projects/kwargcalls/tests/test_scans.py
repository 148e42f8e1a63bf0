from model.scans import checked_total, scan_total


def test_scan():
    assert scan_total() == 28.0


def test_checked():
    assert checked_total() == 28.0
