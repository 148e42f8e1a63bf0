from tpu_inference.config import load_engine_config
from tpu_inference.runner.tpu_runner import TPUModelRunner


def test_moe_layout():
    runner = TPUModelRunner(load_engine_config("moe.json"))
    assert runner.moe_layout() == {"expert": 2, "model": 4}


def test_wide_moe_layout():
    runner = TPUModelRunner(load_engine_config("wide.json", tensor_parallel_size=2))
    assert runner.moe_layout() == {"expert": 4, "model": 2}


def test_dense_layout():
    # the strategy leaves expert parallelism out: `.get`'s default, which other
    # configs rely on, is not where this one's size belongs
    runner = TPUModelRunner(load_engine_config("dense.json"))
    assert runner.moe_layout()
