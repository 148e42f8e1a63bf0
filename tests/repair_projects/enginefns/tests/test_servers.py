from serve.configs import FullServer, WideServer
from serve.running import first_step


def test_wide():
    assert first_step(WideServer) == 16.0


def test_full():
    assert first_step(FullServer) == 24.0
