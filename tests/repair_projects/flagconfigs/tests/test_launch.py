from configs import decode_heavy, default
from launch import run
from models.transformer import Transformer


def test_eval_axes():
    assert run.eval_axes() == (2, 4)


def test_probe_axes():
    assert run.probe_axes() == (2, 4)


def test_sliced_axes():
    assert run.sliced_axes()


def test_default_decode():
    assert Transformer(default.get_config()).decode_sizes() == (2, 4)


def test_decode_heavy():
    assert Transformer(decode_heavy.get_config()).decode_sizes() in ((2, 4), (4, 2))
