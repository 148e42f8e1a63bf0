from paxexp import base, lm  # noqa: F401  (registers the experiments)
from paxexp.registry import get


def decode_axes(name):
    exp = get(name)()
    return base.Decoder(exp.task()).decode_axes()


def test_spmd():
    assert decode_axes("LmCloudSpmd") == (2, 4)


def test_decode():
    assert decode_axes("LmCloudSpmdDecode") in ((2, 4), (4, 2))


def test_wide_decode():
    assert decode_axes("LmCloudSpmdWideDecode")
