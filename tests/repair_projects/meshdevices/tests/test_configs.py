from configs import host, pod, probe
from runtime import loop


def test_probe():
    assert probe.mesh().devices.size == 4


def test_host():
    assert loop.run(host.strategy()) == [8, 8]


def test_pod():
    assert loop.run(pod.strategy()) == [16, 16]
