from mx.config import ParallelConfig
from mx.layers import DraftLayer, MoELayer, WideDraftLayer


def test_moe_sizes():
    assert MoELayer(ParallelConfig()).sizes() == {"expert": 2, "model": 4}


def test_draft_sizes():
    assert DraftLayer(ParallelConfig()).sizes()


def test_wide_draft_sizes():
    assert WideDraftLayer(ParallelConfig()).sizes() == {"draft": 4, "model": 4}
