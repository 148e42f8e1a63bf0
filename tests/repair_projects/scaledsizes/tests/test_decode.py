from serving.decode import decode
from serving.topology import Topology


def test_one_slice():
    assert decode(Topology()).shape == (16,)


def test_two_slices():
    assert decode(Topology(dcn_parallelism=(2, 1))).shape == (16,)
