from edl.config import ModelConfig
from edl.states import EasyState


def test_base_eval_sizes():
    state = EasyState(ModelConfig.from_pretrained("base"))
    assert state.eval_sizes() == {"dp": 1, "fsdp": 4, "tp": 2}


def test_small_eval_sizes():
    state = EasyState(ModelConfig.from_pretrained("small"))
    assert state.eval_sizes() == {"dp": 1, "fsdp": 2, "tp": 2}
